package yarn

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
)

// Node-label writes (RMWebServices: add-node-labels, remove-node-labels,
// replace-node-to-labels). On success they answer an empty 200. A body the
// RM cannot map onto NodeLabelsInfo or NodeToLabelsEntryList is also
// answered 200: Jersey drops keys it does not know, so an entry whose
// labels sit under any key but "labels" reads as an empty list, and the
// RM removes the node's label (recorded on 3.3.6: the key "nodeLabels"
// changed nothing on an unlabelled node and unlabelled a labelled one).
// A 200 proves nothing; callers read back (NodePartitions, NodeLabels) and
// compare. Bodies use arrays, the form every Jersey JSON configuration
// accepts, and exactly the keys the recordings confirm (testenv/rmweb's
// golden write test holds each form to a recording).

// AddNodeLabels is POST /add-node-labels.
func (c *Client) AddNodeLabels(ctx context.Context, labels []Label) error {
	type info struct {
		Name        string `json:"name"`
		Exclusivity bool   `json:"exclusivity"`
	}
	body := struct {
		NodeLabelInfo []info `json:"nodeLabelInfo"`
	}{}
	for _, l := range labels {
		body.NodeLabelInfo = append(body.NodeLabelInfo, info{l.Name, l.Exclusive})
	}
	defer c.InvalidateNodes()
	return c.postJSON(ctx, "/ws/v1/cluster/add-node-labels", nil, body)
}

// RemoveNodeLabels is POST /remove-node-labels?labels=a&labels=b; the RM
// refuses while a queue's accessible-node-labels names one of them
// (recorded) and takes them off any node that still carries them (Hadoop's
// CommonNodeLabelsManager; not recorded).
func (c *Client) RemoveNodeLabels(ctx context.Context, names []string) error {
	defer c.InvalidateNodes()
	return c.postJSON(ctx, "/ws/v1/cluster/remove-node-labels", url.Values{"labels": names}, nil)
}

// ReplaceNodeLabels is POST /replace-node-to-labels: node id (host:port) →
// its one label, "" for the default partition. Each entry is
// {"nodeId":..., "labels":[...]}: Hadoop's NodeToLabelsEntry names the list
// "labels" (recorded on 3.3.6; the former "nodeLabels" key was read as an
// empty list).
func (c *Client) ReplaceNodeLabels(ctx context.Context, nodeToLabel map[string]string) error {
	type entry struct {
		NodeID string   `json:"nodeId"`
		Labels []string `json:"labels"`
	}
	body := struct {
		NodeToLabels []entry `json:"nodeToLabels"`
	}{}
	ids := make([]string, 0, len(nodeToLabel))
	for id := range nodeToLabel {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		e := entry{NodeID: id, Labels: []string{}}
		if l := nodeToLabel[id]; l != "" {
			e.Labels = []string{l}
		}
		body.NodeToLabels = append(body.NodeToLabels, e)
	}
	// The node listing kept for reuse names each node's partition: a
	// write, landed or not, makes the next observe re-read it.
	defer c.InvalidateNodes()
	return c.postJSON(ctx, "/ws/v1/cluster/replace-node-to-labels", nil, body)
}

// NodePartitions reads every node's partition from /nodes (node id →
// label, "" for the default partition): the read-back of a label write.
func (c *Client) NodePartitions(ctx context.Context) (map[string]string, error) {
	nodes, err := c.Nodes(ctx)
	if err != nil {
		return nil, err
	}
	return nodePartitions(nodes), nil
}

// postJSON POSTs a JSON body (or none) to the active RM (a standby's 307
// is re-sent there, body and all); writes are never retried blindly: the
// caller reads back to learn whether one landed.
func (c *Client) postJSON(ctx context.Context, path string, query url.Values, body any) error {
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return fmt.Errorf("POST %s: encode body: %w", path, err)
		}
	}
	return c.rmWrite(ctx, "POST", path, query, data, "application/json", nil)
}
