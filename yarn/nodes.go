package yarn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

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
	ResourceInformation jerseyList[struct {
		Name  string    `json:"name"`
		Value jerseyInt `json:"value"`
	}] `json:"resourceInformation"`
}

var gpuResource = []byte(`"yarn.io/gpu"`)

func (g *gpuCount) UnmarshalJSON(b []byte) error {
	*g = 0
	if !bytes.Contains(b, gpuResource) {
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
	AvailableResource     *resourceJSON      `json:"availableResource"`
	TotalResource         *resourceJSON      `json:"totalResource"`
}

// nodesJSON is the body of /nodes.
type nodesJSON struct {
	Nodes *struct {
		Node jerseyList[nodeJSON] `json:"node"`
	} `json:"nodes"`
}

// Nodes reads /ws/v1/cluster/nodes.
func (c *Client) Nodes(ctx context.Context) ([]cluster.Node, error) {
	var body nodesJSON
	if err := c.rmGet(ctx, "/ws/v1/cluster/nodes", nil, &body); err != nil {
		return nil, err
	}
	if body.Nodes == nil {
		return nil, nil
	}
	out := make([]cluster.Node, 0, len(body.Nodes.Node))
	for i, n := range body.Nodes.Node {
		if n.ID == "" {
			return nil, fmt.Errorf("GET /ws/v1/cluster/nodes: node %d has no id", i)
		}
		used := n.UsedResource.resource()
		if n.UsedResource == nil {
			used = cluster.Resource{MemoryMB: int64(n.UsedMemoryMB), VCores: int64(n.UsedVirtualCores)}
		}
		total := n.TotalResource.resource()
		if n.TotalResource == nil {
			avail := n.AvailableResource.resource()
			if n.AvailableResource == nil {
				avail = cluster.Resource{MemoryMB: int64(n.AvailMemoryMB), VCores: int64(n.AvailableVirtualCores)}
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
		out = append(out, cluster.Node{ID: n.ID, Host: host, Rack: n.Rack, State: cluster.NodeState(n.State),
			HTTPAddress: cluster.HTTPHostPort(n.NodeHTTPAddress), Partition: part, Total: total, Used: used, NumContainers: int(n.NumContainers)})
	}
	return out, nil
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
