package yarn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

type resourceJSON struct {
	Memory               int64 `json:"memory"`
	VCores               int64 `json:"vCores"`
	ResourceInformations *struct {
		ResourceInformation []struct {
			Name  string `json:"name"`
			Value int64  `json:"value"`
		} `json:"resourceInformation"`
	} `json:"resourceInformations"`
}

// resource converts a ResourceInfo; GPUs come only from resourceInformations.
func (r *resourceJSON) resource() cluster.Resource {
	if r == nil {
		return cluster.Resource{}
	}
	out := cluster.Resource{MemoryMB: r.Memory, VCores: r.VCores}
	if r.ResourceInformations != nil {
		for _, ri := range r.ResourceInformations.ResourceInformation {
			if ri.Name == "yarn.io/gpu" {
				out.GPUs = ri.Value
			}
		}
	}
	return out
}

type nodeJSON struct {
	ID                    string        `json:"id"`
	Rack                  string        `json:"rack"`
	State                 string        `json:"state"`
	NodeHostName          string        `json:"nodeHostName"`
	NodeHTTPAddress       string        `json:"nodeHTTPAddress"`
	NumContainers         int           `json:"numContainers"`
	UsedMemoryMB          int64         `json:"usedMemoryMB"`
	AvailMemoryMB         int64         `json:"availMemoryMB"`
	UsedVirtualCores      int64         `json:"usedVirtualCores"`
	AvailableVirtualCores int64         `json:"availableVirtualCores"`
	NodeLabels            []string      `json:"nodeLabels"`
	UsedResource          *resourceJSON `json:"usedResource"`
	AvailableResource     *resourceJSON `json:"availableResource"`
	TotalResource         *resourceJSON `json:"totalResource"`
}

// Nodes reads /ws/v1/cluster/nodes.
func (c *Client) Nodes(ctx context.Context) ([]cluster.Node, error) {
	var body struct {
		Nodes *struct {
			Node []nodeJSON `json:"node"`
		} `json:"nodes"`
	}
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
			used = cluster.Resource{MemoryMB: n.UsedMemoryMB, VCores: n.UsedVirtualCores}
		}
		total := n.TotalResource.resource()
		if n.TotalResource == nil {
			avail := n.AvailableResource.resource()
			if n.AvailableResource == nil {
				avail = cluster.Resource{MemoryMB: n.AvailMemoryMB, VCores: n.AvailableVirtualCores}
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
			HTTPAddress: n.NodeHTTPAddress, Partition: part, Total: total, Used: used, NumContainers: n.NumContainers})
	}
	return out, nil
}

// Label is a node label and its exclusivity.
type Label struct {
	Name      string
	Exclusive bool
}

// NodeLabels reads /ws/v1/cluster/get-node-labels. NodeLabelsInfo uses
// Jersey's default JSON, so the root may be missing, a single label may be a
// bare object and exclusivity may be a string.
func (c *Client) NodeLabels(ctx context.Context) ([]Label, error) {
	var raw map[string]json.RawMessage
	if err := c.rmGet(ctx, "/ws/v1/cluster/get-node-labels", nil, &raw); err != nil {
		return nil, err
	}
	if inner, ok := raw["nodeLabelsInfo"]; ok {
		raw = nil
		if err := json.Unmarshal(inner, &raw); err != nil {
			return nil, fmt.Errorf("GET /ws/v1/cluster/get-node-labels: %w", err)
		}
	}
	var infos []struct {
		Name        string `json:"name"`
		Exclusivity any    `json:"exclusivity"`
	}
	if err := oneOrMany(raw["nodeLabelInfo"], &infos); err != nil {
		return nil, fmt.Errorf("GET /ws/v1/cluster/get-node-labels: nodeLabelInfo: %w", err)
	}
	var out []Label
	for _, i := range infos {
		out = append(out, Label{Name: i.Name, Exclusive: fmt.Sprint(i.Exclusivity) != "false"})
	}
	return out, nil
}

// oneOrMany decodes a JSON list, or a single object as a one-element list
// (Jersey's default encoding of one-element lists).
func oneOrMany[T any](raw json.RawMessage, dst *[]T) error {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil
	}
	if s[0] == '[' {
		return json.Unmarshal(raw, dst)
	}
	var one T
	if err := json.Unmarshal(raw, &one); err != nil {
		return err
	}
	*dst = append(*dst, one)
	return nil
}
