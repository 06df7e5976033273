package sidecar

import (
	"fmt"
	"sort"
	"strings"

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
type preemptionShieldStep struct{ Guard *PreemptionGuard }

// shieldTaskWaits bounds the shielded queue's mean map time in units of
// max_wait_before_kill (15 s default: 60 s maps).
const shieldTaskWaits = 4

// maxIgnoredOverCapacity is the policy's default dead zone above a
// queue's guarantee (max_ignored_over_capacity).
const maxIgnoredOverCapacity = 0.1

const disablePreemptionProp = "disable_preemption"

func (preemptionShieldStep) Name() string { return "preemption shield" }

// shieldCase is one leaf as the shield sees it.
type shieldCase struct {
	SteeredTo string // the plan's home partition ("" default)
	Owners    bool   // another leaf holds a guarantee there
	// LongestTask is the longest mean map time (s) of the classes the
	// queue runs (0: none running or no model); MaxTask the bound.
	LongestTask, MaxTask float64
	Unmodelled           bool // a running class without a model
	LiveDisabled         bool // disable_preemption=true in the live conf
	Ours                 bool // this sidecar set it
	Exposed              bool // holds more than guarantee × 1.1 in a label partition
	// Off: shields are switched off (shield_steered_queues: false, or
	// preemption on purpose): none is set, ours are lifted.
	Off bool
}

// shieldWant decides one leaf: true sets the shield, false lifts it, nil
// leaves the live value alone.
func shieldWant(c shieldCase) *bool {
	on, off := true, false
	eligible := !c.Off && c.SteeredTo != "" && c.Owners && !c.Unmodelled && c.LongestTask <= c.MaxTask
	switch {
	case eligible && !c.LiveDisabled:
		return &on
	case !eligible && c.LiveDisabled && c.Ours && !c.Exposed:
		return &off
	}
	return nil
}

func (st preemptionShieldStep) Run(s *decideState) error {
	g := st.Guard
	if g == nil || s.Preemption == nil {
		return nil
	}
	if g.shielded == nil {
		g.shielded = map[string]bool{}
	}
	// A mark whose "true" is not in the live conf never landed (dry-run,
	// a failed or throttled apply) or was changed by someone else since:
	// what YARN holds there is not ours. No live conf read: nothing is
	// known, nothing is forgotten.
	for p := range g.shielded {
		if len(s.Live) > 0 && !liveShielded(s.Live, p) {
			delete(g.shielded, p)
		}
	}
	s.Preemption.Shielded = sortedKeys(g.shielded)
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
	for _, path := range paths {
		t := s.Targets[path]
		q := s.Tree.ByPath[path]
		if q == nil || len(q.Children) > 0 {
			continue
		}
		c := shieldCase{MaxTask: maxTask, Ours: g.shielded[path], Off: off}
		if t.DefaultLabelExpression != nil {
			c.SteeredTo = strings.TrimSpace(*t.DefaultLabelExpression)
		}
		if c.SteeredTo != "" {
			for _, o := range leaves {
				if o.Path != path && o.AbsCapacity[c.SteeredTo] > 0 {
					c.Owners = true
				}
			}
		}
		for _, a := range apps[path] {
			m, ok := models[s.ClassOf(a)]
			if !ok {
				c.Unmodelled = true
				continue
			}
			c.LongestTask = max(c.LongestTask, m)
		}
		c.LiveDisabled = liveShielded(s.Live, path)
		c.Exposed = exposedInLabels(s.Snap, queueOf, s.Tree, path)
		w := shieldWant(c)
		if w == nil {
			continue
		}
		t.DisablePreemption = w
		if *w {
			g.shielded[path] = true
			t.Reason = joinReason(t.Reason, fmt.Sprintf("preemption shield: jobs steered into partition %s (maps ≤ %.0f s, within %d × max_wait_before_kill) get disable_preemption, so the partition's owners get capacity back as the tasks end, not by kills", c.SteeredTo, c.LongestTask, shieldTaskWaits))
		} else {
			delete(g.shielded, path)
			why := "no longer steered into a label partition"
			if c.Off {
				why = "preemption.shield_steered_queues is off (or preemption on purpose)"
			}
			t.Reason = joinReason(t.Reason, "preemption shield lifted: "+why+", and holds no more there than the RM leaves alone")
		}
		s.Targets[path] = t
	}
	return nil
}

// liveShielded: the live conf has disable_preemption=true on the leaf.
func liveShielded(live schedconf.Conf, path string) bool {
	return confTrue(live[schedconf.Key(path, disablePreemptionProp)])
}

// confTrue reads a boolean property as Hadoop's Configuration.getBoolean
// does: "true" in any case, spaces trimmed; anything else is not true.
// The step and the audit-log recovery share it, so both agree on which
// values are a shield.
func confTrue(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "true") }

// exposedInLabels reports whether a leaf holds more than its guarantee ×
// (1 + max_ignored_over_capacity) in any label partition: what the RM
// would preempt were the owners to ask.
func exposedInLabels(snap cluster.Snapshot, queueOf func(string) (cluster.Queue, bool), tree *schedconf.Tree, path string) bool {
	sq, ok := queueOf(path)
	q := tree.ByPath[path]
	if !ok || q == nil {
		return false
	}
	for _, p := range snap.Partitions {
		if p.Name == "" {
			continue
		}
		guar := q.AbsCapacity[p.Name] * float64(p.Total.MemoryMB)
		if float64(sq.ByPartition[p.Name].Used.MemoryMB) > guar*(1+maxIgnoredOverCapacity) {
			return true
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
