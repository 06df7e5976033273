package sim

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
)

// queueDemand is a leaf queue's apps with requests for one partition, in
// the leaf's order: priority (higher first), then FIFO by submission.
type queueDemand struct {
	path string
	apps []*app
}

// allocateAll is one round of node heartbeats: every usable node with room
// is offered to the queues, least-utilised first (the parent's
// "utilization" ordering policy), each leaf offering it to its apps in
// priority-then-FIFO order.
func (c *Cluster) allocateAll() {
	own := map[string][]*queueDemand{} // partition → leaves with requests naming it
	byQueue := map[string]*queueDemand{}
	live := c.active[:0]
	any := false
	for _, a := range c.active {
		if a.finish.IsZero() {
			live = append(live, a)
		}
		if !a.hasDemand() {
			continue
		}
		any = true
		p := c.labelExpr(a)
		key := p + "\x00" + a.queue
		qd := byQueue[key]
		if qd == nil {
			qd = &queueDemand{path: a.queue}
			byQueue[key] = qd
			own[p] = append(own[p], qd)
		}
		qd.apps = append(qd.apps, a)
	}
	c.active = live
	if !any {
		return
	}
	for _, qs := range own {
		for _, qd := range qs {
			sort.SliceStable(qd.apps, func(i, j int) bool {
				if qd.apps[i].priority != qd.apps[j].priority {
					return qd.apps[i].priority > qd.apps[j].priority
				}
				return qd.apps[i].seq < qd.apps[j].seq
			})
		}
	}
	totals := map[string]rmweb.Resource{}
	for _, n := range c.nodes {
		if n.state == "RUNNING" {
			totals[n.label] = add(totals[n.label], n.total)
		}
	}
	delay, rackDelay := c.localityDelays()
	// Rotate the heartbeat order so no node is always offered first.
	start := (int(c.now.Unix()) + c.sc.HeartbeatOffset) % len(c.nodes)
	for i := range c.nodes {
		n := c.nodes[(start+i)%len(c.nodes)]
		if n.state != "RUNNING" {
			continue
		}
		for c.fits(n.free(), rmweb.Resource{MemoryMB: 512, VCores: 1}) {
			placed := c.offer(n, own[n.label], totals, delay, rackDelay, false)
			if !placed && n.label != "" && !c.labels[n.label] {
				// Non-exclusive partition: idle resources go to
				// default-partition requests (NodeLabel.md).
				placed = c.offer(n, own[""], totals, delay, rackDelay, true)
			}
			if !placed {
				break
			}
		}
	}
}

// offer gives node n to the first queue, in utilisation order, that has a
// request it may place there; it reports whether a container was placed.
func (c *Cluster) offer(n *node, queues []*queueDemand, totals map[string]rmweb.Resource, delay, rackDelay int, borrowed bool) bool {
	if len(queues) == 0 {
		return false
	}
	p := n.label
	total := totals[p]
	util := func(q string) float64 {
		q0 := c.tree.ByPath[q]
		if q0 == nil {
			return math.Inf(1)
		}
		guar := q0.AbsCapacity[p] * float64(total.MemoryMB)
		if borrowed {
			guar = q0.AbsCapacity[""] * float64(total.MemoryMB)
		}
		used := float64(c.usage[q][p].MemoryMB)
		if guar <= 0 {
			return 1e9 + used
		}
		return used / guar
	}
	order := make([]*queueDemand, 0, len(queues))
	for _, qd := range queues {
		if len(qd.apps) > 0 {
			order = append(order, qd)
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return util(order[i].path) < util(order[j].path) })
	for _, qd := range order {
		q := c.tree.ByPath[qd.path]
		if q == nil || q.State != "RUNNING" && q.State != "" {
			continue
		}
		if !borrowed && !q.CanUse(p) {
			continue
		}
		for _, a := range qd.apps {
			if !a.hasDemand() {
				continue
			}
			if c.tryApp(a, n, total, delay, rackDelay, borrowed) {
				return true
			}
		}
	}
	return false
}

// withinMax checks the queue chain's maximum-capacity in the partition.
func (c *Cluster) withinMax(queue, p string, size, total rmweb.Resource, borrowed bool) bool {
	if borrowed {
		return true // lending idle non-exclusive resources
	}
	for q := queue; q != ""; q = parentPath(q) {
		qc := c.tree.ByPath[q]
		if qc == nil {
			return false
		}
		max := qc.AbsMaxCapacity[p]
		used := add(c.usage[q][p], size)
		if float64(used.MemoryMB) > max*float64(total.MemoryMB)+0.5 || !c.memoryOnly && float64(used.VCores) > max*float64(total.VCores)+0.5 {
			return false
		}
	}
	return true
}

// tryApp places the app's next request on n if limits and locality allow.
func (c *Cluster) tryApp(a *app, n *node, total rmweb.Resource, delay, rackDelay int, borrowed bool) bool {
	p := n.label
	free := n.free()
	if a.amPending {
		// The RM places no AM on a node lent in
		// IGNORE_PARTITION_EXCLUSIVITY mode (RegularContainerAllocator):
		// the partition's own queues may take the node back.
		if borrowed || !c.fits(free, amResource) || !c.withinMax(a.queue, p, amResource, total, borrowed) {
			return false
		}
		q := c.tree.ByPath[a.queue]
		limit := q.MaxAMResourcePercent * q.AbsCapacity[p] * float64(total.MemoryMB)
		if used := c.amUsage[a.queue]; used.MemoryMB > 0 && float64(used.MemoryMB+amResource.MemoryMB) > limit {
			return false // maximum-am-resource-percent: the app stays ACCEPTED
		}
		a.amPending = false
		a.amNode = n
		a.start = c.now
		c.allocate(a, n, amResource)
		c.amUsage[a.queue] = add(c.amUsage[a.queue], amResource)
		ev := c.schedule(c.now.Add(amStartup), evAMReady, 0, nil)
		ev.app = a
		return true
	}
	if a.spark != nil {
		return c.trySparkExecutor(a, n, total, borrowed)
	}
	if !a.running || !c.fits(free, a.mapSize) || !c.withinMax(a.queue, p, a.mapSize, total, borrowed) {
		return false
	}
	if !c.nonPartitionedFirst(a, n, borrowed) {
		return false
	}
	if len(a.pendingMaps) > 0 {
		if idx, ok := firstPending(a, a.pendingByHost[n.host]); ok {
			c.launchMap(a, idx, n, "NODE_LOCAL")
			return true
		}
		if a.missed < delay {
			a.missed++
			return false
		}
		if idx, ok := firstPending(a, a.pendingByRack[n.rack]); ok {
			c.launchMap(a, idx, n, "RACK_LOCAL")
			return true
		}
		if a.missed < c.offSwitchDelay(a, delay, rackDelay) {
			a.missed++
			return false
		}
		for idx := range a.maps {
			if a.pendingMaps[idx] {
				c.launchMap(a, idx, n, "OFF_SWITCH")
				return true
			}
		}
	}
	if a.pendingReduces > 0 {
		for _, t := range a.reduces {
			if t.state == "SCHEDULED" {
				a.pendingReduces--
				c.startAttempt(a, t, n, "")
				return true
			}
		}
	}
	return false
}

// nonPartitionedFirst is RegularContainerAllocator's rule that a request
// of the default partition goes to default-partition nodes first
// (preCheckForNodeCandidateSet): every check of such a request against a
// node counts a missed opportunity, before locality is looked at; on a
// non-exclusive partition's idle node (IGNORE_PARTITION_EXCLUSIVITY) the
// request is skipped until it has missed as many as the cluster has nodes
// (getNumClusterNodes); a container on a default-partition node resets the
// count (doAllocation). So an app takes a lent node only when the default
// partition has had nothing for it for a while, whatever
// rack-locality-full-reset says. One count per app, where Hadoop keeps one
// per scheduler key (maps, reduces): the two share it here.
func (c *Cluster) nonPartitionedFirst(a *app, n *node, borrowed bool) bool {
	if n.label != "" && !borrowed {
		return true // a request naming the node's own partition
	}
	a.missedNonPartitioned++
	return !borrowed || a.missedNonPartitioned >= c.schedNodes
}

func firstPending(a *app, idxs []int) (int, bool) {
	for len(idxs) > 0 && !a.pendingMaps[idxs[0]] {
		idxs = idxs[1:]
	}
	if len(idxs) == 0 {
		return 0, false
	}
	return idxs[0], true
}

func (c *Cluster) launchMap(a *app, idx int, n *node, locality string) {
	delete(a.pendingMaps, idx)
	for _, h := range a.maps[idx].hosts {
		a.pendingByHost[h] = trimDone(a, a.pendingByHost[h])
	}
	a.pendingByRack[n.rack] = trimDone(a, a.pendingByRack[n.rack])
	// Delay scheduling's counter (RegularContainerAllocator): a node-local
	// container resets it; a rack-local one only while
	// rack-locality-full-reset is true (the default); off-switch never.
	if locality == "NODE_LOCAL" || (locality == "RACK_LOCAL" && c.confBool("yarn.scheduler.capacity.rack-locality-full-reset", true)) {
		a.missed = 0
	}
	c.startAttempt(a, a.maps[idx], n, locality)
}

// localityDelays are delay scheduling's thresholds as
// RegularContainerAllocator reads them: node-locality-delay capped at the
// cluster's node count (getActualNodeLocalityDelay), and
// rack-locality-additional-delay (-1, the default: off-switch waits by the
// locality wait factor instead; offSwitchDelay).
func (c *Cluster) localityDelays() (nodeDelay, rackAdditional int) {
	delay := c.confInt("yarn.scheduler.capacity.node-locality-delay", 40)
	rackAdditional = c.confInt("yarn.scheduler.capacity.rack-locality-additional-delay", -1)
	c.schedNodes = c.clusterNodes()
	return min(c.schedNodes, delay), rackAdditional
}

// clusterNodes is the scheduler's node count (getNumClusterNodes: every
// registered node, of every partition).
func (c *Cluster) clusterNodes() int {
	n := 0
	for _, nd := range c.nodes {
		if nd.state == "RUNNING" {
			n++
		}
	}
	return n
}

// offSwitchDelay is how many scheduling opportunities an app misses before
// an off-switch container (canAssign, NodeType.OFF_SWITCH): with
// rack-locality-additional-delay set, node-locality-delay plus it, capped
// at the node count; otherwise its outstanding maps times the locality
// wait factor (unique locations asked, less one, over the node count, at
// most 1), capped at the node count; no wait when it asks for no location.
// The unique locations are counted from the app's host and rack lists,
// which may keep hosts whose maps already ran: an upper bound, and the
// factor is capped at 1 anyway.
func (c *Cluster) offSwitchDelay(a *app, nodeDelay, rackAdditional int) int {
	nodes := c.schedNodes
	if rackAdditional > -1 {
		return min(nodes, nodeDelay+rackAdditional)
	}
	uniq := len(a.pendingByHost) + len(a.pendingByRack) + 1
	if uniq == 1 || nodes == 0 {
		return 0
	}
	factor := math.Min(float64(uniq-1)/float64(nodes), 1)
	return int(math.Min(float64(nodes), float64(len(a.pendingMaps))*factor))
}

// trimDone drops leading entries that are no longer pending (lazy deletion).
func trimDone(a *app, idxs []int) []int {
	for len(idxs) > 0 && !a.pendingMaps[idxs[0]] {
		idxs = idxs[1:]
	}
	return idxs
}

func (c *Cluster) confBool(key string, def bool) bool {
	if v, ok := c.conf[key]; ok {
		if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil {
			return b
		}
	}
	return def
}

func (c *Cluster) confInt(key string, def int) int {
	if v, ok := c.conf[key]; ok {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return def
}
