package yarn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

type resourceJSON struct {
	Memory jerseyInt `json:"memory"`
	VCores jerseyInt `json:"vCores"`
	GPUs   gpuCount  `json:"resourceInformations"`
}

// gpuCount is the yarn.io/gpu value of a resource's resourceInformations.
// Every resource of every app, queue and node carries that list (the bulk
// of a large apps list) and only the GPU entry is read, so the list is
// decoded only when it names one.
type gpuCount int64

// resourceInformationsJSON is a resource's resourceInformations.
type resourceInformationsJSON struct {
	ResourceInformation jerseyList[gpuEntry] `json:"resourceInformation"`
}

type gpuEntry struct {
	Name  string    `json:"name"`
	Value jerseyInt `json:"value"`
}

var gpuResource = []byte(`"yarn.io/gpu"`)

// UnmarshalJSONFrom reads the value in place from a stream (stream.go).
func (g *gpuCount) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	b, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return atField(dec, g.UnmarshalJSON(b))
}

func (g *gpuCount) UnmarshalJSON(b []byte) error {
	*g = 0
	v, absent, ok := gpuValueScan(b)
	if absent {
		return nil
	}
	if ok {
		*g = gpuCount(v)
		return nil
	}
	// The common array form decodes in one pass; Jersey's other list
	// encodings (one object) through jerseyList.
	var plain struct {
		ResourceInformation []gpuEntry `json:"resourceInformation"`
	}
	if err := json.Unmarshal(b, &plain); err == nil {
		for _, i := range plain.ResourceInformation {
			if i.Name == "yarn.io/gpu" {
				*g = gpuCount(i.Value)
			}
		}
		return nil
	}
	var ri resourceInformationsJSON
	if err := json.Unmarshal(b, &ri); err != nil {
		return err
	}
	for _, i := range ri.ResourceInformation {
		if i.Name == "yarn.io/gpu" {
			*g = gpuCount(i.Value)
		}
	}
	return nil
}

// gpuValueFast reads the yarn.io/gpu entry's value straight from the
// text, without decoding the list: every resource of every node, app and
// queue carries one on a cluster with GPUs, and decoding them was a fifth
// of a snapshot's CPU (issue 19). It answers only when the entry reads
// `"name":"yarn.io/gpu"` followed, before the entry ends or nests, by
// `"value":N` (Jersey writes the keys in that order); anything else is
// left to the decoder (ok false). b is valid JSON (the decoder
// checked it).
func gpuValueFast(b []byte) (int64, bool) {
	v, _, ok := gpuValueScan(b)
	return v, ok
}

// gpuValueScan is gpuValueFast, also saying whether the text names no GPU
// at all (absent): one pass over the text for the common cases.
func gpuValueScan(b []byte) (v int64, absent, ok bool) {
	i := bytes.Index(b, gpuResource)
	if i < 0 {
		return 0, true, false
	}
	if !bytes.HasSuffix(bytes.TrimRight(b[:i], " \t\r\n"), []byte(`"name":`)) ||
		bytes.Contains(b[i+len(gpuResource):], gpuResource) {
		return 0, false, false
	}
	// The entry's keys after the name, up to its end or a nested value:
	// a "value" key there belongs to the entry.
	rest := b[i+len(gpuResource):]
	end := bytes.IndexAny(rest, "{[}")
	if end < 0 {
		return 0, false, false
	}
	entry := rest[:end]
	if bytes.IndexByte(entry, '\\') >= 0 {
		return 0, false, false
	}
	j := bytes.Index(entry, []byte(`"value":`))
	if j < 0 {
		return 0, false, false
	}
	lit := entry[j+len(`"value":`):]
	if k := bytes.IndexByte(lit, ','); k >= 0 {
		lit = lit[:k]
	}
	num, ok := numberLiteral(lit)
	if !ok || len(num) == 0 {
		return 0, false, false
	}
	v, ok = parseDecimal(num)
	return v, false, ok
}

// resource converts a ResourceInfo; GPUs come only from resourceInformations.
func (r *resourceJSON) resource() cluster.Resource {
	if r == nil {
		return cluster.Resource{}
	}
	return cluster.Resource{MemoryMB: int64(r.Memory), VCores: int64(r.VCores), GPUs: int64(r.GPUs)}
}

type nodeJSON struct {
	ID                    string             `json:"id"`
	Rack                  string             `json:"rack"`
	State                 string             `json:"state"`
	NodeHostName          string             `json:"nodeHostName"`
	NodeHTTPAddress       string             `json:"nodeHTTPAddress"`
	NumContainers         jerseyInt          `json:"numContainers"`
	UsedMemoryMB          jerseyInt          `json:"usedMemoryMB"`
	AvailMemoryMB         jerseyInt          `json:"availMemoryMB"`
	UsedVirtualCores      jerseyInt          `json:"usedVirtualCores"`
	AvailableVirtualCores jerseyInt          `json:"availableVirtualCores"`
	NodeLabels            jerseyList[string] `json:"nodeLabels"`
	UsedResource          *resourceJSON      `json:"usedResource"`
	// AvailableResource is decoded only when totalResource is missing
	// (before 3.x): a third of every node's bulk otherwise read for nothing.
	AvailableResource lazyResource  `json:"availableResource"`
	TotalResource     *resourceJSON `json:"totalResource"`
}

// lazyResource is a resource kept as its JSON text, decoded only when
// needed.
type lazyResource string

// UnmarshalJSONFrom reads the value in place from a stream (stream.go).
func (l *lazyResource) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	b, err := dec.ReadValue()
	if err != nil {
		return err
	}
	return atField(dec, l.UnmarshalJSON(b))
}

func (l *lazyResource) UnmarshalJSON(b []byte) error {
	*l = lazyResource(b)
	return nil
}

// nodesJSON is the body of /nodes.
type nodesJSON struct {
	Nodes *struct {
		Node jerseyList[nodeJSON] `json:"node"`
	} `json:"nodes"`
}

// Nodes reads /ws/v1/cluster/nodes.
func (c *Client) Nodes(ctx context.Context) ([]cluster.Node, error) {
	var body nodesStream
	if err := c.rmGet(ctx, "/ws/v1/cluster/nodes", nil, &body); err != nil {
		return nil, err
	}
	if body.missing >= 0 {
		return nil, fmt.Errorf("GET /ws/v1/cluster/nodes: node %d has no id", body.missing)
	}
	return body.nodes, nil
}

// nodesStream decodes /nodes element by element (stream.go).
type nodesStream struct {
	nodes   []cluster.Node
	missing int // index of the first node without an id, or -1
}

func (s *nodesStream) decodeStream(dec *jsontext.Decoder) error {
	s.nodes, s.missing = nil, -1
	i := 0
	return decodeListAt(dec, []string{"nodes", "node"}, func(n *nodeJSON) error {
		if n.ID == "" && s.missing < 0 {
			s.missing = i
		}
		i++
		s.nodes = append(s.nodes, n.node())
		return nil
	})
}

func (n *nodeJSON) node() cluster.Node {
	used := n.UsedResource.resource()
	if n.UsedResource == nil {
		used = cluster.Resource{MemoryMB: int64(n.UsedMemoryMB), VCores: int64(n.UsedVirtualCores)}
	}
	total := n.TotalResource.resource()
	if n.TotalResource == nil {
		avail := cluster.Resource{MemoryMB: int64(n.AvailMemoryMB), VCores: int64(n.AvailableVirtualCores)}
		var ar *resourceJSON
		if n.AvailableResource != "" && json.Unmarshal([]byte(n.AvailableResource), &ar) == nil && ar != nil {
			avail = ar.resource()
		}
		total = used.Add(avail)
	}
	host := n.NodeHostName
	if host == "" {
		host, _, _ = strings.Cut(n.ID, ":")
	}
	part := ""
	if len(n.NodeLabels) > 0 {
		part = n.NodeLabels[0]
	}
	return cluster.Node{ID: n.ID, Host: host, Rack: n.Rack, State: cluster.NodeState(n.State),
		HTTPAddress: cluster.HTTPHostPort(n.NodeHTTPAddress), Partition: part, Total: total, Used: used, NumContainers: int(n.NumContainers)}
}

// Label is a node label and its exclusivity.
type Label struct {
	Name      string
	Exclusive bool
}

// nodeLabelsJSON is /get-node-labels: {"nodeLabelInfo":...} on 3.3.6 (an
// object for one label), wrapped in "nodeLabelsInfo" by some releases;
// exclusivity is a string ("false") or a boolean.
type nodeLabelsJSON struct {
	NodeLabelsInfo *struct {
		NodeLabelInfo jerseyList[nodeLabelJSON] `json:"nodeLabelInfo"`
	} `json:"nodeLabelsInfo"`
	NodeLabelInfo jerseyList[nodeLabelJSON] `json:"nodeLabelInfo"`
}

type nodeLabelJSON struct {
	Name        string      `json:"name"`
	Exclusivity *jerseyBool `json:"exclusivity"`
}

// NodeLabels reads /ws/v1/cluster/get-node-labels.
func (c *Client) NodeLabels(ctx context.Context) ([]Label, error) {
	var body nodeLabelsJSON
	if err := c.rmGet(ctx, "/ws/v1/cluster/get-node-labels", nil, &body); err != nil {
		return nil, err
	}
	list := append([]nodeLabelJSON(nil), body.NodeLabelInfo...)
	if body.NodeLabelsInfo != nil {
		list = append(list, body.NodeLabelsInfo.NodeLabelInfo...)
	}
	var out []Label
	for _, i := range list {
		// YARN's default exclusivity is true.
		out = append(out, Label{Name: i.Name, Exclusive: i.Exclusivity == nil || bool(*i.Exclusivity)})
	}
	return out, nil
}
