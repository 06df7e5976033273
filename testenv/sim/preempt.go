package sim

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Preemption after Hadoop's ProportionalCapacityPreemptionPolicy
// (CapacityScheduler.md "Capacity Scheduler container preemption"; the
// policy's sources in apache/hadoop, read, not copied). What is modelled:
// inter-queue preemption per partition, with the knobs below; memory as the
// only resource compared (DefaultResourceCalculator, the Capacity
// Scheduler's default). What is not: intra-queue preemption (priority or
// user-limit inside a queue), reserved-container preemption, lazy
// preemption (killable containers), preemption to balance queues
// over their guarantees (preemption-to-balance-queue-beyond-guaranteed), and
// the AM's reaction to the PreemptionMessage it gets before the kill
// (MapReduce ignores it unless task checkpointing is on; not the default).

// The yarn-site properties a scenario's yarn_site block may set.
const (
	PreemptionEnable       = "yarn.resourcemanager.scheduler.monitor.enable"
	preemptionPrefix       = "yarn.resourcemanager.monitor.capacity.preemption."
	PreemptionInterval     = preemptionPrefix + "monitoring_interval"
	PreemptionMaxWait      = preemptionPrefix + "max_wait_before_kill"
	PreemptionPerRound     = preemptionPrefix + "total_preemption_per_round"
	PreemptionMaxIgnored   = preemptionPrefix + "max_ignored_over_capacity"
	PreemptionNatural      = preemptionPrefix + "natural_termination_factor"
	disablePreemptionQueue = "disable_preemption" // yarn.scheduler.capacity.<queue-path>.disable_preemption
)

// PreemptedDiagnostics is the attempt diagnostics of a preempted container
// (recorded from a real 3.3.6 JobHistory).
const PreemptedDiagnostics = "Container preempted by scheduler"

// PreemptionConf is the policy's configuration. Defaults are Hadoop's.
type PreemptionConf struct {
	Enabled bool
	// Interval between policy rounds (monitoring_interval, ms; 3000).
	Interval time.Duration
	// MaxWait from a container's first selection to its kill
	// (max_wait_before_kill, ms; 15000).
	MaxWait time.Duration
	// PerRound caps what one round may take, as a share of the partition
	// (total_preemption_per_round; 0.1).
	PerRound float64
	// MaxIgnored: a queue is preempted from only when its use exceeds its
	// guarantee by more than this share (max_ignored_over_capacity; 0.1).
	MaxIgnored float64
	// Natural is the share of the gap taken per round; the rest is left to
	// containers ending on their own (natural_termination_factor; 0.2).
	Natural float64
}

// ParsePreemptionConf reads the policy from yarn-site properties; a bad
// value is an error naming the property.
func ParsePreemptionConf(site map[string]string) (PreemptionConf, error) {
	pc := PreemptionConf{Interval: 3 * time.Second, MaxWait: 15 * time.Second, PerRound: 0.1, MaxIgnored: 0.1, Natural: 0.2}
	if v, ok := site[PreemptionEnable]; ok {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return pc, fmt.Errorf("yarn_site %s: %q is not true or false", PreemptionEnable, v)
		}
		pc.Enabled = b
	}
	if p, ok := site["yarn.resourcemanager.scheduler.monitor.policies"]; ok && pc.Enabled && !strings.Contains(p, "ProportionalCapacityPreemptionPolicy") {
		return pc, fmt.Errorf("yarn_site yarn.resourcemanager.scheduler.monitor.policies: %q: only ProportionalCapacityPreemptionPolicy is modelled", p)
	}
	ms := func(key string, into *time.Duration) error {
		v, ok := site[key]
		if !ok {
			return nil
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("yarn_site %s: %q is not a positive number of milliseconds", key, v)
		}
		*into = time.Duration(n) * time.Millisecond
		return nil
	}
	frac := func(key string, into *float64, lo, hi float64) error {
		v, ok := site[key]
		if !ok {
			return nil
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || f < lo || f > hi {
			return fmt.Errorf("yarn_site %s: %q is not a number in [%g, %g]", key, v, lo, hi)
		}
		*into = f
		return nil
	}
	for _, err := range []error{
		ms(PreemptionInterval, &pc.Interval), ms(PreemptionMaxWait, &pc.MaxWait),
		frac(PreemptionPerRound, &pc.PerRound, 0, 1), frac(PreemptionMaxIgnored, &pc.MaxIgnored, 0, 10),
		frac(PreemptionNatural, &pc.Natural, 0, 1),
	} {
		if err != nil {
			return pc, err
		}
	}
	return pc, nil
}

// preemptor is the monitor's state between rounds: when each container
// (attempt or AM) was first selected.
type preemptor struct {
	conf     PreemptionConf
	marked   map[*attempt]time.Time
	amMarked map[*app]time.Time
	// Killed counts the preempted containers and their container-seconds.
	killed        int
	killedSeconds float64
	// events is every kill, in order (PreemptionEvents).
	events []PreemptionEvent
}

// PreemptionEvent is one container the policy killed: when, whose, in
// which partition, and the work it had done (lost). For an AM kill, Lost
// includes the app's running tasks, killed with it.
type PreemptionEvent struct {
	At               time.Time
	App, Queue       string
	Partition        string
	AM               bool
	Lost             float64
	QueueGuaranteeMB float64 // the queue's guarantee in the partition at the kill
	QueueUsedMB      float64 // its use there just before the kill
}

// preemptedTotals is what the RM reports per app about preemption.
type preemptedTotals struct {
	MemoryMB, VCores    int64
	NonAM, AM           int
	MemSeconds, VCoreSe float64
}

func (c *Cluster) initPreemptionAndSpeculation() error {
	pc, err := ParsePreemptionConf(c.sc.YarnSite)
	if err != nil {
		return err
	}
	if pc.Enabled {
		c.preempt = &preemptor{conf: pc, marked: map[*attempt]time.Time{}, amMarked: map[*app]time.Time{}}
		c.schedule(c.start.Add(pc.Interval), evPreemptionMonitor, 0, nil)
	}
	sp, err := ParseSpeculationConf(c.sc.MapredSite)
	if err != nil {
		return err
	}
	if sp.Maps {
		c.spec = &speculator{conf: sp}
		c.schedule(c.start.Add(sp.Interval), evSpeculate, 0, nil)
	}
	return nil
}

// PreemptionStats is the cluster-wide count of preempted containers and the
// container-seconds of work they had done (lost).
func (c *Cluster) PreemptionStats() (containers int, lostSeconds float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.preempt == nil {
		return 0, 0
	}
	return c.preempt.killed, c.preempt.killedSeconds
}

// PreemptionDisabled reports a queue's preemptionDisabled as the RM's
// scheduler REST shows it: true when the monitor is off, or the queue (or
// an ancestor) sets disable_preemption.
func (c *Cluster) PreemptionDisabled(path string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.preempt == nil || c.queuePreemptionDisabled(path)
}

// queuePreemptionDisabled: disable_preemption is inherited from the parent
// unless the queue sets it (CapacitySchedulerConfiguration.getPreemptionDisabled).
func (c *Cluster) queuePreemptionDisabled(path string) bool {
	for q := path; q != ""; q = parentPath(q) {
		if v, ok := c.conf[schedconf.Key(q, disablePreemptionQueue)]; ok {
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			return err == nil && b
		}
	}
	return false
}

// pqueue is one queue's figures in one partition for a round (MB).
type pqueue struct {
	path                              string
	guaranteed, max, used, pending    float64
	ideal                             float64
	disabled                          bool
	children                          []*pqueue
	toBePreempted, resToObtain, maxAM float64
}

// preemptionRound is one run of the policy: per partition, the ideal
// allocation, what each queue over it must give back, the containers
// selected, and the kills of those selected for longer than max wait.
func (c *Cluster) preemptionRound() {
	selected := map[*attempt]bool{}
	selectedAM := map[*app]bool{}
	parts := map[string]bool{"": true}
	for l := range c.labels {
		parts[l] = true
	}
	// A container is selected only while it fits in what the round may
	// still take of the whole cluster (total_preemption_per_round ×
	// cluster; CapacitySchedulerPreemptionUtils): on a small cluster with
	// big containers the default 0.1 may never let one go.
	allowance := 0.0
	for p := range parts {
		allowance += float64(c.partitionTotal(p).MemoryMB)
	}
	allowance *= c.preempt.conf.PerRound
	names := make([]string, 0, len(parts))
	for p := range parts {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		total := float64(c.partitionTotal(p).MemoryMB)
		if total <= 0 {
			continue
		}
		leaves := c.idealAllocation(p, total)
		ResToObtain(leaves, total, c.preempt.conf)
		for _, q := range leaves {
			if q.resToObtain > 0 {
				c.selectFrom(q, p, selected, selectedAM, &allowance)
			}
		}
	}
	now := c.now
	// A container's mark outlives the rounds that do not select it: the
	// policy kills a selected container whose first mark is at least
	// max_wait_before_kill old, marks a selected one not yet marked, and
	// only then forgets the marks made more than 2 × max_wait_before_kill
	// ago, selected or not (preemptOrkillSelectedContainerAfterWait, then
	// cleanupStaledPreemptionCandidates). So a container marked once and
	// selected again within that time is killed at once. A container that
	// ended is forgotten here (the policy never selects it again).
	for at := range c.preempt.marked {
		if at.state != "RUNNING" {
			delete(c.preempt.marked, at)
		}
	}
	for a := range c.preempt.amMarked {
		if !a.finish.IsZero() || a.amNode == nil {
			delete(c.preempt.amMarked, a)
		}
	}
	defer c.forgetStaleMarks(now)
	// Kill in a fixed order (determinism): by app, then task, then attempt.
	kill := overdue(c.preempt.marked, selected, now, c.preempt.conf.MaxWait)
	sort.Slice(kill, func(i, j int) bool { return attemptLess(kill[i], kill[j]) })
	for _, at := range kill {
		delete(c.preempt.marked, at)
		c.preemptAttempt(at)
	}
	for _, at := range kill {
		c.giveToStarving(at.node)
	}
	amKill := overdue(c.preempt.amMarked, selectedAM, now, c.preempt.conf.MaxWait)
	sort.Slice(amKill, func(i, j int) bool { return amKill[i].seq < amKill[j].seq })
	for _, a := range amKill {
		delete(c.preempt.amMarked, a)
		c.preemptAM(a)
	}
}

func attemptLess(x, y *attempt) bool {
	if x.app.seq != y.app.seq {
		return x.app.seq < y.app.seq
	}
	if x.task.typ != y.task.typ {
		return x.task.typ < y.task.typ
	}
	if x.task.idx != y.task.idx {
		return x.task.idx < y.task.idx
	}
	return x.n < y.n
}

// preemptAttempt kills a task container; its work is lost and the task
// re-runs.
func (c *Cluster) preemptAttempt(at *attempt) {
	a := at.app
	ran := c.now.Sub(at.start).Seconds()
	a.preempted.MemoryMB += at.size.MemoryMB
	a.preempted.VCores += at.size.VCores
	a.preempted.NonAM++
	a.preempted.MemSeconds += float64(at.size.MemoryMB) * ran
	a.preempted.VCoreSe += float64(at.size.VCores) * ran
	c.preempt.killed++
	c.preempt.killedSeconds += ran
	c.logPreemption(a, at.node.label, false, ran)
	c.killAttempt(at, PreemptedDiagnostics)
}

// logPreemption records one kill (before its release).
func (c *Cluster) logPreemption(a *app, p string, am bool, lost float64) {
	g := 0.0
	if q := c.tree.ByPath[a.queue]; q != nil {
		g = q.AbsCapacity[p] * float64(c.partitionTotal(p).MemoryMB)
	}
	c.preempt.events = append(c.preempt.events, PreemptionEvent{At: c.now, App: a.id, Queue: a.queue, Partition: p, AM: am, Lost: lost,
		QueueGuaranteeMB: g, QueueUsedMB: float64(c.usage[a.queue][p].MemoryMB)})
}

// PreemptionEvents lists the kills so far (a copy).
func (c *Cluster) PreemptionEvents() []PreemptionEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.preempt == nil {
		return nil
	}
	return append([]PreemptionEvent(nil), c.preempt.events...)
}

// preemptAM kills an app's AM container: the app attempt ends, its task
// containers go with it (MapReduce does not keep containers across
// attempts) and a new AM is requested; finished tasks are kept (MapReduce
// AM recovery, on by default).
func (c *Cluster) preemptAM(a *app) {
	ran := c.now.Sub(a.start).Seconds()
	a.preempted.MemoryMB += amResource.MemoryMB
	a.preempted.VCores += amResource.VCores
	a.preempted.AM++
	a.preempted.MemSeconds += float64(amResource.MemoryMB) * ran
	a.preempted.VCoreSe += float64(amResource.VCores) * ran
	c.preempt.killed++
	c.preempt.killedSeconds += ran
	lost, ev := ran, len(c.preempt.events)
	c.logPreemption(a, a.amNode.label, true, ran)
	for _, ts := range [][]*task{a.maps, a.reduces} {
		for _, t := range ts {
			for _, at := range t.attempts {
				if at.state == "RUNNING" {
					c.preempt.killedSeconds += c.now.Sub(at.start).Seconds()
					lost += c.now.Sub(at.start).Seconds()
					c.killAttempt(at, PreemptedDiagnostics)
				}
			}
		}
	}
	c.preempt.events[ev].Lost = lost
	c.release(a, a.amNode, amResource)
	c.amUsage[a.queue] = sub(c.amUsage[a.queue], amResource)
	a.amNode, a.amPending, a.running, a.state = nil, true, false, "ACCEPTED"
	a.pendingMaps, a.pendingByHost, a.pendingByRack, a.pendingReduces = map[int]bool{}, map[string][]int{}, map[string][]int{}, 0
	for _, t := range a.reduces {
		if t.state == "SCHEDULED" {
			t.state = "NEW"
		}
	}
}

// idealAllocation builds the partition's queue tree with each queue's
// guarantee, maximum, use and pending demand, and shares the partition top
// down: each parent's ideal among its children in proportion to their
// guarantees, none given more than it can use (used + pending, capped by
// its maximum), what one cannot use going to the others (the policy's
// computeIdealAllocation, water-filling). It returns the leaves.
func (c *Cluster) idealAllocation(p string, total float64) []*pqueue {
	pending := map[string]float64{}
	for _, a := range c.active {
		if !a.finish.IsZero() || !a.hasDemand() || c.labelExpr(a) != p {
			continue
		}
		if a.amPending {
			pending[a.queue] += float64(amResource.MemoryMB)
			continue
		}
		pending[a.queue] += float64(a.mapSize.MemoryMB) * float64(len(a.pendingMaps)+a.pendingReduces)
	}
	var leaves []*pqueue
	var build func(q *schedconf.Queue) *pqueue
	build = func(q *schedconf.Queue) *pqueue {
		pq := &pqueue{path: q.Path, guaranteed: q.AbsCapacity[p] * total, max: q.AbsMaxCapacity[p] * total,
			used: float64(c.usage[q.Path][p].MemoryMB), disabled: c.queuePreemptionDisabled(q.Path)}
		if q.IsLeaf() {
			pq.pending = pending[q.Path]
			pq.maxAM = q.MaxAMResourcePercent * pq.guaranteed
			leaves = append(leaves, pq)
			return pq
		}
		for _, ch := range q.Children {
			k := build(ch)
			pq.children = append(pq.children, k)
			pq.pending += k.pending
		}
		return pq
	}
	root := build(c.tree.Root)
	root.ideal = total
	var share func(q *pqueue)
	share = func(q *pqueue) {
		WaterFill(q.ideal, q.children)
		for _, ch := range q.children {
			share(ch)
		}
	}
	share(root)
	return leaves
}

// WaterFill shares avail among queues in proportion to their guarantees,
// none above what it wants (min(used+pending, max)); what a satisfied queue
// leaves is shared again among the others. Queues with no guarantee share
// what is left equally.
func WaterFill(avail float64, qs []*pqueue) {
	const eps = 1e-6
	want := func(q *pqueue) float64 { return math.Min(q.used+q.pending, q.max) }
	open := append([]*pqueue(nil), qs...)
	for avail > eps && len(open) > 0 {
		sumG := 0.0
		for _, q := range open {
			sumG += q.guaranteed
		}
		var next []*pqueue
		spent := 0.0
		for _, q := range open {
			share := avail / float64(len(open))
			if sumG > 0 {
				share = avail * q.guaranteed / sumG
			}
			take := math.Max(0, math.Min(share, want(q)-q.ideal))
			q.ideal += take
			spent += take
			if q.ideal < want(q)-eps {
				next = append(next, q)
			}
		}
		avail -= spent
		if spent <= eps {
			break
		}
		open = next
	}
}

// ResToObtain sets each leaf's toBePreempted (use above its ideal, scaled
// so one round takes at most total_preemption_per_round of the partition)
// and resToObtain: a share natural_termination_factor of it, for queues
// whose use exceeds their guarantee by more than max_ignored_over_capacity
// and that do not disable preemption.
func ResToObtain(leaves []*pqueue, total float64, pc PreemptionConf) {
	sum := 0.0
	for _, q := range leaves {
		q.toBePreempted, q.resToObtain = 0, 0
		if q.disabled {
			continue
		}
		q.toBePreempted = math.Max(0, q.used-q.ideal)
		sum += q.toBePreempted
	}
	if limit := pc.PerRound * total; sum > limit && sum > 0 {
		for _, q := range leaves {
			q.toBePreempted *= limit / sum
		}
	}
	for _, q := range leaves {
		if q.used > q.guaranteed*(1+pc.MaxIgnored) {
			q.resToObtain = q.toBePreempted * pc.Natural
		}
	}
}

// preemptedView fills the RM app's preempted* fields.
func (a *app) preemptedView() rmweb.Preempted {
	return rmweb.Preempted{MemoryMB: a.preempted.MemoryMB, VCores: a.preempted.VCores, NonAMContainers: a.preempted.NonAM,
		AMContainers: a.preempted.AM, MemorySeconds: int64(a.preempted.MemSeconds), VcoreSeconds: int64(a.preempted.VCoreSe)}
}

// giveToStarving offers a node freed by preemption to the queues below
// their guarantee with demand in its partition, least served first. A
// stand-in for the Capacity Scheduler's reservation: the request that
// could not fit has reserved the node and gets it when the kill frees it,
// so the freed space goes to the queue it was taken for, not back to the
// queue it was taken from (which would be preempted again, round after
// round). Reservations themselves are not modelled.
func (c *Cluster) giveToStarving(n *node) {
	if n.state != "RUNNING" {
		return
	}
	p := n.label
	total := c.partitionTotal(p)
	type cand struct {
		path string
		util float64
	}
	var qs []cand
	for _, leaf := range c.tree.Leaves() {
		guar := leaf.AbsCapacity[p] * float64(total.MemoryMB)
		used := float64(c.usage[leaf.Path][p].MemoryMB)
		if guar > 0 && used < guar {
			qs = append(qs, cand{leaf.Path, used / guar})
		}
	}
	sort.SliceStable(qs, func(i, j int) bool { return qs[i].util < qs[j].util })
	delay, rackDelay := c.localityDelays()
	for _, q := range qs {
		for _, a := range c.active {
			if a.queue != q.path || !a.hasDemand() || c.labelExpr(a) != p {
				continue
			}
			if c.tryApp(a, n, total, delay, rackDelay, false) {
				return
			}
		}
	}
}
