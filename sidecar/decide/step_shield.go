package decide

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// preemptionShieldStep keeps the RM from killing work the plan steers
// into a node-label partition (issue 16, safe default: preemption on, not
// on purpose).
//
// Why: steering a queue's jobs into a small label partition (adhoc's
// crypto onto hetero-100's gpu nodes) lets it borrow that partition's idle
// guarantees; when the owners' demand returns (ml's next train job), the
// RM's ProportionalCapacityPreemptionPolicy kills the borrower's newest
// containers. No move of that cycle causes the kills, so the guard, which
// bounds what a move costs, cannot see them; and capping the borrower at
// its ideal assignment (a maximum-capacity cap, tried and reverted) cost
// other classes 16%. The shield instead sets disable_preemption on the
// steered queue while it is steered: the owners get the capacity back as
// the borrower's tasks end (natural termination) instead of by kills. That
// is only safe for the owners when those tasks are short: a queue is
// shielded only while the classes it runs have a mean map time within
// shieldTaskWaits × max_wait_before_kill (the owner then waits at most a
// few times what the RM itself waits before a kill). The shield comes off
// once the queue is no longer steered there and holds no more than its
// guarantee × (1 + max_ignored_over_capacity) there (the RM would not
// preempt it anyway), so lifting it kills nothing. Only shields this
// sidecar set are lifted: remembered in memory while it runs, and
// re-learnt from the audit log at a restart (shield_recover.go), so a
// shield never outlives the reason it was set. With
// preemption.shield_steered_queues off (or preemption on purpose, which
// wants the RM to preempt) no shield is set and those set earlier are
// lifted under the same no-kill condition.
//
// Issue 37 (a real 3.3.6 RM, 3 s monitor, 10 s max_wait_before_kill): the
// shield lands in the same mutation as the route (shieldWant), only on a
// queue that will hold more than its guarantee in the steered partition
// (never on one reclaiming its guarantee there, nor on a queue the admin
// homed there), its map-time bound is the class's map time on the
// steered partition's nodes (mapTimeThere), and a class with no model yet
// is shielded with its route.
// disable_preemption is one flag per queue, read for every partition
// (ProportionalCapacityPreemptionPolicy.cloneQueues; Hadoop has no
// per-partition form): the plan's reason says what the shield also
// covers in the queue's other partitions.
type preemptionShieldStep struct {
	Guard *PreemptionGuard
	// Seen is what the admin configured when the sidecar first saw each
	// queue (its home: a route there is the admin's, not a steering).
	Seen map[string]SeenValue
}

// shieldTaskWaits bounds the shielded queue's mean map time in units of
// max_wait_before_kill (15 s default: 60 s maps).
const shieldTaskWaits = 4

func (preemptionShieldStep) Name() string { return "preemption shield" }

// shieldCase is one leaf as the shield sees it.
type shieldCase struct {
	SteeredTo string // the plan's home partition ("" default), when the sidecar steers it there
	Owners    bool   // another leaf holds a guarantee there
	// Borrows: what the queue uses there plus all it still asks for is
	// more than its guarantee there × (1 + max_ignored_over_capacity):
	// some of its containers will sit on the owners' guarantees, which the
	// RM takes back by kills. A queue whose demand fits in its guarantee
	// there is never preempted there: no shield (it would only switch
	// preemption off for the queue's other partitions).
	Borrows bool
	// Reclaiming: the queue is below its guarantee there, asks there, and
	// another leaf holds more than its guarantee there: the RM preempts
	// FOR this queue there, never from it. The shield never lands on it.
	Reclaiming bool
	// LongestTask is the longest mean map time (s) of the classes the
	// queue runs (0: none running or no model); MaxTask the bound. A
	// class without a model (its first run, a calibration run) counts as
	// within the bound: the shield goes on with the route, and comes off
	// once a model says its maps are longer (and lifting kills nothing).
	LongestTask, MaxTask float64
	LiveDisabled         bool // disable_preemption=true in the live conf
	Ours                 bool // this sidecar set it
	Exposed              bool // lifting would let the RM kill (exposedAfterLift)
	// NewRoute: the plan writes the route this cycle (the live
	// default-node-label-expression differs).
	NewRoute bool
	// Off: shields are switched off (shield_steered_queues: false, or
	// preemption on purpose): none is set, ours are lifted.
	Off bool
}

// shieldVerdict is the step's answer for one leaf: Want sets (true) or
// lifts (false) the shield, nil leaves the live value alone; Uncovered
// says a new route puts the queue's containers on the owners' guarantees
// with no shield to cover them (its maps are too long for one).
type shieldVerdict struct {
	Want      *bool
	Uncovered bool
}

// shieldWant decides one leaf. The shield comes with the route, in the
// same mutation (issue 37: on a real RM a shield written a cycle or two
// after the route came 18 s and 59 s after the owners' demand, while the
// RM kills max_wait_before_kill after its first mark, 13 s on that
// cluster), or the queue is already shielded. When the shield is not
// allowed (maps too long: the owners would wait too long) the route still
// goes, unshielded, as before issue 37, and its reason says so: holding
// such a route was measured on lee-toy+preemption (go run
// ./testenv/bench -only preemption -seeds 1): class A's route to n1 (its
// maps 90 s off n1, over 4 × 15 s) held kept A in the default partition,
// where b reclaimed its guarantee by kills: lost work 54 -> 1192
// container-s per hour, ΣPS 47.9% -> 45.5% of its bound, mean job 25m17s
// -> 27m53s. The preemption guard bounds what the RM may kill there.
func shieldWant(c shieldCase) shieldVerdict {
	on, off := true, false
	exposedThere := !c.Off && c.SteeredTo != "" && c.Owners && c.Borrows && !c.Reclaiming
	eligible := exposedThere && c.LongestTask <= c.MaxTask
	switch {
	case eligible && !c.LiveDisabled:
		return shieldVerdict{Want: &on}
	case !eligible && c.LiveDisabled && c.Ours && !c.Exposed:
		return shieldVerdict{Want: &off, Uncovered: exposedThere && c.NewRoute}
	}
	return shieldVerdict{Uncovered: exposedThere && !eligible && c.NewRoute && !c.LiveDisabled}
}

func (st preemptionShieldStep) Run(s *decideState) error {
	g := st.Guard
	if g == nil || s.Preemption == nil {
		return nil
	}
	if g.shielded == nil {
		g.shielded = map[string]time.Time{}
	}
	// A mark whose "true" is not in the live conf never landed (dry-run,
	// a failed or throttled apply) or was changed by someone else since:
	// what YARN holds there is not ours. No live conf read: nothing is
	// known, nothing is forgotten.
	for p := range g.shielded {
		if len(s.Live) > 0 && !LiveShielded(s.Live, p) {
			delete(g.shielded, p)
		}
	}
	s.Preemption.Shielded = plan.SortedKeys(g.shielded)
	s.Preemption.ShieldSince = shieldSince(g.shielded)
	if !s.Preemption.On || s.Tree == nil {
		return nil // the RM does not preempt: a shield changes nothing
	}
	off := !g.Config.Shield() || g.Config.OnPurpose
	models := map[string]float64{}
	if g.Models != nil {
		for c, m := range g.Models() {
			models[c] = m.Map.Mean()
		}
	}
	maxTask := shieldTaskWaits * s.Preemption.MaxWaitBeforeKill.Seconds()
	ignored := s.Preemption.MaxIgnoredOverCapacity
	paths := make([]string, 0, len(s.Targets))
	for p := range s.Targets {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	// Running apps by queue and the leaves, listed once, not per target
	// (targets × apps: 200 × 5,000 at scale-10k).
	apps := map[string][]cluster.App{}
	for _, a := range s.Snap.RunningApps() {
		apps[a.Queue] = append(apps[a.Queue], a)
	}
	leaves := s.Tree.Leaves()
	queueOf := s.Snap.QueueIndex()
	slots, allSlots := map[string]map[string]int64{}, map[string]int64{}
	for _, p := range s.Parts {
		slots[p.Name] = p.Slots
		for typ, n := range p.Slots {
			allSlots[typ] += n
		}
	}
	totals := map[string]float64{}
	for _, p := range s.Snap.Partitions {
		totals[p.Name] = float64(p.Total.MemoryMB)
	}
	for _, path := range paths {
		t := s.Targets[path]
		q := s.Tree.ByPath[path]
		if q == nil || len(q.Children) > 0 {
			continue
		}
		c := shieldCase{MaxTask: maxTask, Off: off}
		_, c.Ours = g.shielded[path]
		liveRoute := strings.TrimSpace(s.Live[schedconf.Key(path, "default-node-label-expression")])
		if t.DefaultLabelExpression != nil {
			c.SteeredTo = strings.TrimSpace(*t.DefaultLabelExpression)
			c.NewRoute = c.SteeredTo != liveRoute
		} else {
			c.SteeredTo = liveRoute
		}
		// The admin's own home is not a route the sidecar steers: its
		// queue is an owner there, not a borrower the shield protects.
		if home := st.adminHome(path); home != nil && strings.TrimSpace(*home) == c.SteeredTo {
			c.SteeredTo = ""
		}
		fig := shieldFigures{}
		if c.SteeredTo != "" {
			for _, o := range leaves {
				if o.Path != path && o.AbsCapacity[c.SteeredTo] > 0 {
					c.Owners = true
				}
			}
			fig = partitionFigures(s, queueOf, leaves, path, c.SteeredTo, t, totals[c.SteeredTo], ignored)
			c.Borrows, c.Reclaiming = fig.borrows(), fig.reclaiming()
		}
		for _, a := range apps[path] {
			class := s.ClassOf(a)
			m, ok := models[class]
			if !ok {
				continue // no model yet: within the bound (shieldCase)
			}
			if c.SteeredTo != "" {
				// The containers the shield keeps are the ones in the
				// steered partition, and they run at its speed.
				m = mapTimeThere(m, s.Rates, class, allSlots, slots[c.SteeredTo])
			}
			c.LongestTask = max(c.LongestTask, m)
		}
		c.LiveDisabled = LiveShielded(s.Live, path)
		c.Exposed = ExposedAfterLift(s.Snap, queueOf, s.Tree, leaves, path, ignored)
		v := shieldWant(c)
		if v.Uncovered {
			t.Reason = joinReason(t.Reason, fmt.Sprintf("no preemption shield for the route to partition %s: the queue will hold %.0f MB there against a guarantee of %.0f MB, and its maps (%.0f s) are longer than %d × max_wait_before_kill, so when the partition's owners come back the RM may kill its containers there (the preemption guard bounds it)", c.SteeredTo, fig.Used+fig.Pending, fig.Guarantee, c.LongestTask, shieldTaskWaits))
			s.Targets[path] = t
		}
		if v.Want == nil {
			continue
		}
		t.DisablePreemption = v.Want
		if *v.Want {
			g.shielded[path] = s.Snap.Time
			t.Reason = joinReason(t.Reason, fmt.Sprintf("preemption shield: jobs steered into partition %s (%.0f MB there and asking, against a guarantee of %.0f MB; maps ≤ %.0f s, within %d × max_wait_before_kill) get disable_preemption in the same mutation as the route, so the partition's owners get capacity back as the tasks end, not by kills", c.SteeredTo, fig.Used+fig.Pending, fig.Guarantee, c.LongestTask, shieldTaskWaits))
			if other := otherPartitionsOver(s.Snap, queueOf, s.Tree, path, c.SteeredTo, ignored); other != "" {
				// Hadoop has no narrower means: disable_preemption is one
				// flag per queue, read for every partition
				// (ProportionalCapacityPreemptionPolicy.cloneQueues); the
				// intra-queue flag and max_ignored_over_capacity do not
				// cover one partition. Weighed: the queue's containers
				// there drain as its maps end (the route sends new ones
				// to the steered partition), within the same bound.
				t.Reason = joinReason(t.Reason, "disable_preemption covers every partition of the queue: the RM cannot reclaim by kills what it holds over its guarantee in "+other+"; the other queues there get it back as its maps end")
			}
		} else {
			delete(g.shielded, path)
			why := "no longer steered into a label partition where it borrows"
			if c.Off {
				why = "preemption.shield_steered_queues is off (or preemption on purpose)"
			}
			t.Reason = joinReason(t.Reason, "preemption shield lifted: "+why+", and holds no more than the RM leaves alone where others wait")
		}
		s.Targets[path] = t
	}
	return nil
}

// adminHome is the queue's default-node-label-expression when the
// sidecar first saw it (nil: not recorded).
func (st preemptionShieldStep) adminHome(path string) *string {
	if v, ok := st.Seen[SeenKey(path, "")]; ok {
		return v.Home
	}
	return nil
}

// shieldFigures are one leaf's figures in the steered partition (MB).
type shieldFigures struct {
	Used, Pending, Guarantee float64
	Ignored                  float64 // max_ignored_over_capacity
	OthersOver               bool    // another leaf holds more than its guarantee × (1 + Ignored) there
	PendingThere             bool    // the queue asks in that partition now
}

func (f shieldFigures) borrows() bool {
	return f.Used+f.Pending > f.Guarantee*(1+f.Ignored)
}

func (f shieldFigures) reclaiming() bool {
	return f.Used < f.Guarantee && f.PendingThere && f.OthersOver
}

// partitionFigures: the leaf's use and guarantee in partition p (the
// plan's guarantee when it sets one), all it asks for anywhere (a route
// sends every new request there), and whether others borrow there.
func partitionFigures(s *decideState, queueOf func(string) (cluster.Queue, bool), leaves []*schedconf.Queue, path, p string, t plan.QueueTarget, total, ignored float64) shieldFigures {
	f := shieldFigures{Ignored: ignored}
	q := s.Tree.ByPath[path]
	abs := q.AbsCapacity[p]
	if pct, ok := t.Capacity[p]; ok && q.Parent != nil {
		abs = pct / 100 * q.Parent.AbsCapacity[p]
	}
	f.Guarantee = abs * total
	if sq, ok := queueOf(path); ok {
		f.Used = float64(sq.ByPartition[p].Used.MemoryMB)
		f.PendingThere = sq.ByPartition[p].Pending.MemoryMB > 0
		for _, c := range sq.ByPartition {
			f.Pending += float64(c.Pending.MemoryMB)
		}
	}
	for _, o := range leaves {
		if o.Path == path {
			continue
		}
		if oq, ok := queueOf(o.Path); ok && float64(oq.ByPartition[p].Used.MemoryMB) > o.AbsCapacity[p]*total*(1+ignored) {
			f.OthersOver = true
		}
	}
	return f
}

// otherPartitionsOver names the partitions other than p where the leaf
// holds more than its guarantee × (1 + ignored) ("" none).
func otherPartitionsOver(snap cluster.Snapshot, queueOf func(string) (cluster.Queue, bool), tree *schedconf.Tree, path, p string, ignored float64) string {
	sq, ok := queueOf(path)
	q := tree.ByPath[path]
	if !ok || q == nil {
		return ""
	}
	var out []string
	for _, part := range snap.Partitions {
		if part.Name == p {
			continue
		}
		used := float64(sq.ByPartition[part.Name].Used.MemoryMB)
		if g := q.AbsCapacity[part.Name] * float64(part.Total.MemoryMB); used > g*(1+ignored) {
			name := part.Name
			if name == "" {
				name = "the default partition"
			}
			out = append(out, fmt.Sprintf("%s (%.0f MB over %.0f MB)", name, used, g))
		}
	}
	return strings.Join(out, ", ")
}

// mapTimeThere is a class's mean map time on a partition's nodes. The
// class's model mixes every node type its past maps ran on; taking those
// as spread over the cluster's slots, a map's work is mean ÷ Σ w_i/r_i (w_i
// the share of the cluster's slots of type i, r_i the class's CR there),
// and its time on the partition is that work × Σ v_j/r_j over the
// partition's types (v_j their share of its slots). The shield's bound is
// about the containers it keeps, which run there: crypto's 100 s maps on
// CPU nodes take 33 s on the GPU node it is steered to. Without a known
// rate on every type, the model's mean as it is.
func mapTimeThere(mean float64, rates progress.Rates, class string, all, there map[string]int64) float64 {
	inv := func(sl map[string]int64) (float64, bool) {
		var n int64
		sum := 0.0
		for typ, k := range sl {
			if k == 0 {
				continue
			}
			r, ok := rates.Rate(class, typ)
			if !ok || r <= 0 {
				return 0, false
			}
			sum += float64(k) / r
			n += k
		}
		if n == 0 {
			return 0, false
		}
		return sum / float64(n), true
	}
	if rates == nil {
		return mean
	}
	a, ok1 := inv(all)
	p, ok2 := inv(there)
	if !ok1 || !ok2 || a <= 0 {
		return mean
	}
	return mean / a * p
}

// shieldSince copies the marks' times.
func shieldSince(m map[string]time.Time) map[string]time.Time {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]time.Time, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// LiveShielded: the live conf has disable_preemption=true on the leaf.
func LiveShielded(live schedconf.Conf, path string) bool {
	return ConfTrue(live[schedconf.Key(path, plan.DisablePreemptionProp)])
}

// ConfTrue reads a boolean property as Hadoop's Configuration.getBoolean
// does: "true" in any case, spaces trimmed; anything else is not true.
// The step and the audit-log recovery share it, so both agree on which
// values are a shield.
func ConfTrue(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "true") }

// ExposedAfterLift reports whether lifting the leaf's shield could let
// the RM kill its containers: it holds more than its guarantee × (1 +
// max_ignored_over_capacity) in a label partition (what the RM would
// preempt were the owners to ask), or in the default partition while
// another leaf there is below its guarantee and asks (the RM would
// preempt for it at once).
func ExposedAfterLift(snap cluster.Snapshot, queueOf func(string) (cluster.Queue, bool), tree *schedconf.Tree, leaves []*schedconf.Queue, path string, ignored float64) bool {
	sq, ok := queueOf(path)
	q := tree.ByPath[path]
	if !ok || q == nil {
		return false
	}
	for _, p := range snap.Partitions {
		total := float64(p.Total.MemoryMB)
		guar := q.AbsCapacity[p.Name] * total
		if float64(sq.ByPartition[p.Name].Used.MemoryMB) <= guar*(1+ignored) {
			continue
		}
		if p.Name != "" {
			return true
		}
		for _, o := range leaves {
			oq, ok := queueOf(o.Path)
			if o.Path != path && ok && float64(oq.ByPartition[p.Name].Used.MemoryMB) < o.AbsCapacity[p.Name]*total && oq.ByPartition[p.Name].Pending.MemoryMB > 0 {
				return true
			}
		}
	}
	return false
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
