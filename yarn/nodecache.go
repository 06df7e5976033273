package yarn

import (
	"context"
	"sync"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Node-listing reuse (issue 19). /cluster/nodes is the biggest answer a
// snapshot reads (about 30 MiB for 10,000 nodes), yet which nodes exist,
// their state, size and partition change rarely. /cluster/metrics (under
// 2 KiB) counts nodes by state and sums their resources, so the last
// listing is reused while those figures are what they were when it was
// read, for at most the max age, and never after the sidecar wrote node
// labels. A reused listing's per-node use is stale: observe takes each
// partition's use from the leaf queues (the scheduler answer, read every
// snapshot) instead.

// DefaultNodeListingMaxAge is ObserveOptions.NodeListingMaxAge's default.
const DefaultNodeListingMaxAge = 5 * time.Minute

// nodeListingKey is what the cluster metrics say about the node listing:
// a node registering, leaving, turning unhealthy or being decommissioned
// changes a count; a node resized changes the cluster total; a node moved
// into or out of the default partition changes totalMB (which counts the
// default partition only, YARN-11414). totalVirtualCores is left out: it
// is allocated + available vcores with available floored at 0, so it
// moves with use when the default resource calculator lets vcores
// overcommit (recorded on 3.3.6: 7 on a 4-vcore partition).
type nodeListingKey struct {
	RM                                string
	Total, Active, Lost, Unhealthy    int
	Decommissioning, Decommissioned   int
	Rebooted, Shutdown                int
	DefaultPartitionMB                int64
	ClusterTotal                      cluster.Resource
	CrossPartitionAvailable, Complete bool
}

// keyOf is the metrics' node key as read from the given RM.
func keyOf(rm string, m Metrics) nodeListingKey {
	return nodeListingKey{RM: rm, Total: m.TotalNodes, Active: m.ActiveNodes, Lost: m.LostNodes, Unhealthy: m.UnhealthyNodes,
		Decommissioning: m.DecommissioningNodes, Decommissioned: m.DecommissionedNodes, Rebooted: m.RebootedNodes, Shutdown: m.ShutdownNodes,
		DefaultPartitionMB: m.TotalMB, ClusterTotal: m.TotalAcrossPartitions, CrossPartitionAvailable: m.CrossPartitionAvailable, Complete: true}
}

// nodeReuseInput is what the reuse decision looks at.
type nodeReuseInput struct {
	Have    bool           // a listing is kept
	Last    nodeListingKey // the metrics when it was read
	ReadAt  time.Time      // when it was read
	Now     nodeListingKey // the metrics now (Complete false: unreadable)
	Time    time.Time      // now
	MaxAge  time.Duration  // ObserveOptions.NodeListingMaxAge, defaulted
	Written bool           // node labels were written since it was read
}

// Reasons for a node-listing decision (logged, and tested).
const (
	nodesReuse     = "reused: cluster metrics unchanged"
	nodesNone      = "read: no listing kept"
	nodesAlways    = "read: reuse off (max age negative)"
	nodesWritten   = "read: node labels written since the last read"
	nodesNoMetrics = "read: cluster metrics unreadable"
	nodesChanged   = "read: cluster metrics changed"
	nodesAged      = "read: listing older than the max age"
	nodesClockBack = "read: clock before the last read"
)

// decideNodeReuse says whether the kept listing stands in for a fresh one.
func decideNodeReuse(in nodeReuseInput) (reuse bool, why string) {
	switch {
	case in.MaxAge < 0:
		return false, nodesAlways
	case !in.Have:
		return false, nodesNone
	case in.Written:
		return false, nodesWritten
	case !in.Now.Complete:
		return false, nodesNoMetrics
	case in.Now != in.Last:
		return false, nodesChanged
	case in.Time.Before(in.ReadAt):
		return false, nodesClockBack
	case in.Time.Sub(in.ReadAt) > in.MaxAge:
		return false, nodesAged
	}
	return true, nodesReuse
}

// nodeCache keeps the last node listing between snapshots, with the
// node labels read alongside it.
type nodeCache struct {
	mu     sync.Mutex
	have   bool
	nodes  []cluster.Node
	key    nodeListingKey
	readAt time.Time
	// labels are the node labels read with the listing, and stand in for
	// a fresh read while the listing is reused; labelsOK says they were
	// read (a failed read is tried again next snapshot). Labels change
	// through the RM's node-label API: the sidecar's own writes
	// invalidate the listing (invalidate); a label added or its
	// exclusivity changed by someone else is seen when the listing is next
	// read, at most NodeListingMaxAge later (a node moved into or out of
	// the default partition changes the metrics' totalMB and is seen at
	// once).
	labels   []Label
	labelsOK bool
	// gen counts label writes; a listing read before the latest write
	// (its gen older) is never reused.
	gen, readGen uint64
}

// invalidate is called on every node-label write, landed or not (a
// write answered with an error may still have landed).
func (n *nodeCache) invalidate() {
	n.mu.Lock()
	n.gen++
	n.mu.Unlock()
}

// InvalidateNodes makes the next observe re-read the node listing: the
// client calls it on its own node-label writes; a caller that changed
// nodes by other means calls it too.
func (c *Client) InvalidateNodes() { c.nodeList.invalidate() }

// nodeRead is the outcome of observeNodes.
type nodeRead struct {
	nodes  []cluster.Node
	readAt time.Time
	reused bool
	why    string
	// labels (or why they could not be read) and whether they were kept
	// from the listing's read.
	labels       []Label
	labelErr     error
	labelsReused bool
}

// observeNodes reads the cluster metrics, then the node listing unless the
// kept one may be reused. now is the snapshot's time, zero for the RM's
// clock (its Date header on the metrics answer).
func (c *Client) observeNodes(ctx context.Context, now time.Time, maxAge time.Duration) (nodeRead, error) {
	if maxAge == 0 {
		maxAge = DefaultNodeListingMaxAge
	}
	stamp := func() time.Time {
		if !now.IsZero() {
			return now
		}
		if t, ok := c.ServerTime(); ok {
			return t
		}
		return time.Now().UTC()
	}
	var key nodeListingKey
	if maxAge >= 0 {
		if m, err := c.Metrics(ctx); err == nil {
			key = keyOf(c.ActiveRM(), m)
		}
	}
	t := stamp()
	n := &c.nodeList
	n.mu.Lock()
	reuse, why := decideNodeReuse(nodeReuseInput{Have: n.have, Last: n.key, ReadAt: n.readAt, Now: key, Time: t, MaxAge: maxAge,
		Written: n.readGen != n.gen})
	if reuse {
		out := nodeRead{nodes: append([]cluster.Node(nil), n.nodes...), readAt: n.readAt, reused: true, why: why}
		if n.labelsOK {
			out.labels, out.labelsReused = append([]Label(nil), n.labels...), true
		}
		n.mu.Unlock()
		if !out.labelsReused {
			out.labels, out.labelErr = c.NodeLabels(ctx)
			if out.labelErr == nil {
				n.mu.Lock()
				if n.readAt.Equal(out.readAt) { // still the listing they go with
					n.labels, n.labelsOK = append([]Label(nil), out.labels...), true
				}
				n.mu.Unlock()
			}
		}
		return out, nil
	}
	gen := n.gen
	n.mu.Unlock()
	// The labels are read alongside the listing and kept with it.
	var (
		labels   []Label
		labelErr error
		wg       sync.WaitGroup
	)
	wg.Add(1)
	go func() { defer wg.Done(); labels, labelErr = c.NodeLabels(ctx) }()
	nodes, err := c.Nodes(ctx)
	wg.Wait()
	if err != nil {
		return nodeRead{why: why}, err
	}
	if key.Complete {
		n.mu.Lock()
		n.have, n.nodes, n.key, n.readAt, n.readGen = true, append([]cluster.Node(nil), nodes...), key, t, gen
		n.labels, n.labelsOK = append([]Label(nil), labels...), labelErr == nil
		n.mu.Unlock()
	}
	return nodeRead{nodes: nodes, readAt: t, why: why, labels: labels, labelErr: labelErr}, nil
}

// usedFromQueues sets each partition's use from the leaf queues' use there
// less their reservations (a queue's use counts what it reserved; a node's
// does not), for a snapshot whose node listing, and so per-node use, is
// stale. Partitions no leaf uses are idle.
func usedFromQueues(parts []cluster.Partition, queues []cluster.Queue) []cluster.Partition {
	used := map[string]cluster.Resource{}
	for _, q := range queues {
		if !q.Leaf {
			continue
		}
		for p, c := range q.ByPartition {
			used[p] = used[p].Add(c.Used).Sub(c.Reserved)
		}
	}
	out := make([]cluster.Partition, len(parts))
	for i, p := range parts {
		p.Used = used[p.Name]
		out[i] = p
	}
	return out
}

// typesSeen is what the kept listing says of partitions' node types
// (typesNoListing when none is kept), for deciding the apps read before
// this snapshot's listing is in.
func (n *nodeCache) typesSeen(nodeType func(cluster.Node) string) nodeTypesSeen {
	if nodeType == nil {
		return typesNotGiven
	}
	n.mu.Lock()
	have, nodes := n.have, n.nodes
	n.mu.Unlock()
	if !have {
		return typesNoListing
	}
	return seenTypes(nodes, nodeType) // the kept slice is never written in place
}
