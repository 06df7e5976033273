package sidecar

import (
	"math"
	"sort"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// borrowCapStep keeps a queue the plan steers into a node-label partition
// from holding more there than the RM's preemption would leave it when
// every queue sent to that partition asks at once (issue 16).
//
// Why: with the RM's preemption on, ProportionalCapacityPreemptionPolicy
// takes back, with kills, what a queue holds above its ideal assignment:
// each partition shared among the queues that ask, in proportion to their
// guarantees (water-filling, computeIdealResourceDistribution), a queue
// within max_ignored_over_capacity of its guarantee left alone. Steering
// several queues' jobs into one small partition (gpu in hetero-100) lets
// the first to arrive fill it, and the next job of another queue sent
// there makes the RM kill the first one's containers: measured, the only
// kills of the safe default on hetero-100 (seed 2, 56m27s: adhoc at 226 GB
// of gpu, its ideal 215 GB, when ml's train job arrived). A stock cluster
// sends no job there. No move of that cycle causes them, so the preemption
// guard, which bounds what a move costs, cannot see them; this cap removes
// the exposure instead. The cap is the queue's ideal when all the siblings
// sent to the partition ask (its guarantee × 100 ÷ their guarantees' sum):
// queues not sent there never ask there, so their guarantee is borrowed
// without risk. It never cuts the maximum below what the queue holds (a
// maximum below use is itself preempted), so it kills nothing: while the
// queue holds more, its live maximum stands. Preemption on
// purpose, a queue that opts out of preemption, and the default partition
// (where stock queues borrow the same way) are left alone.
type borrowCapStep struct{ OnPurpose bool }

// borrowSlack is how far (percentage points of the parent) a live maximum
// may sit above the cap before the step writes it down: the policy leaves a
// queue alone within max_ignored_over_capacity (10% of its guarantee) of
// its guarantee, and a write every time the plan moves a guarantee a little
// would spend the rate limit the steering needs.
const borrowSlack = 5.0

func (borrowCapStep) Name() string { return "borrow-cap" }

func (st borrowCapStep) Run(s *decideState) error {
	if st.OnPurpose || s.Preemption == nil || !s.Preemption.On || s.Tree == nil {
		return nil
	}
	// The partition each leaf's new jobs go to: the plan's home, else the
	// live default-node-label-expression.
	home := map[string]string{}
	for _, q := range s.Snap.LeafQueues() {
		home[q.Path] = q.DefaultLabelExpression
	}
	for path, t := range s.Targets {
		if t.DefaultLabelExpression != nil {
			home[path] = *t.DefaultLabelExpression
		}
	}
	paths := make([]string, 0, len(s.Targets))
	for p := range s.Targets {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, path := range paths {
		t := s.Targets[path]
		part := home[path]
		q := s.Tree.ByPath[path]
		if part == "" || s.Preemption.disabled(path) || q == nil || q.Parent == nil {
			continue
		}
		guar, ok := t.Capacity[part]
		if !ok {
			continue
		}
		asking := 0.0 // the guarantees of the siblings sent to part, this one's included
		for _, sib := range q.Parent.Children {
			if home[sib.Path] != part {
				continue
			}
			if st, ok := s.Targets[sib.Path]; ok {
				if g, ok := st.Capacity[part]; ok {
					asking += g
					continue
				}
			}
			asking += percentOf(sib, part)
		}
		ideal := 100.0
		if asking > epsilonMB {
			ideal = math.Min(100, guar*100/asking)
		}
		if t.MaxCapacity == nil {
			t.MaxCapacity = map[string]float64{}
		}
		live := maxPercentOf(q, part)
		switch {
		case holds(s, q, part) > ideal:
			// Already above it: a maximum below use is itself preempted, so
			// the live maximum stands until the queue's containers end
			// (following its use down would write every cycle).
			t.MaxCapacity[part] = live
		case live >= ideal && live-ideal <= borrowSlack:
			// Close enough: not worth a mutation (each one re-initialises
			// the queue tree and spends the rate limit).
			t.MaxCapacity[part] = live
		default:
			t.MaxCapacity[part] = ideal
		}
		s.Targets[path] = t
	}
	return nil
}

// holds is the percent of its parent's share of the partition the queue's
// containers take there, rounded up.
func holds(s *decideState, q *schedconf.Queue, part string) float64 {
	sq, ok := s.Snap.Queue(q.Path)
	pt, _ := s.Snap.Partition(part)
	parentMB := q.Parent.AbsCapacity[part] * float64(pt.Total.MemoryMB)
	if !ok || parentMB <= 0 {
		return 0
	}
	return math.Ceil(100*100*float64(sq.ByPartition[part].Used.MemoryMB)/parentMB) / 100
}
