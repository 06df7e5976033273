package decide

import (
	"math"
	"sort"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// psPlanStep is the PS-fair capacity plan over the leaves (Lee's
// Algorithm 2 lifted to queues × partitions; progress.Plan). A queue is
// sent to calibrate on an unmeasured partition only while its demand is at
// most CalibrationMax containers (issue 32: a bounded sample).
type psPlanStep struct{ CalibrationMax int64 }

func (psPlanStep) Name() string { return "PS plan" }

func (st psPlanStep) Run(s *decideState) error {
	// Each queue rated by where its own input lives (effective.go).
	s.Plan = progress.Plan(progress.PlanInput{Partitions: plannable(s), Queues: QueueRateKeys(s.Queues, s.Rates), Rates: s.Rates, CalibrationMaxContainers: st.CalibrationMax})
	// What each calibration move exposes: the queue's demand, at most
	// CalibrationMax containers (the audit records it per move).
	demand := map[string]int64{}
	for _, q := range s.Queues {
		demand[q.Path] = q.Demand
	}
	for _, qp := range s.Plan.Queues {
		if qp.Calibrating != "" {
			s.Calibrations = append(s.Calibrations, plan.CalibrationExposure{Queue: qp.Path, Partition: qp.Calibrating, Containers: demand[qp.Path]})
		}
	}
	return nil
}

// plannable is each partition's slots less the guarantees of the leaves
// the plan leaves alone (they keep their share; the planned leaves divide
// the rest).
func plannable(s *decideState) []progress.PartitionSlots {
	planned := map[string]bool{}
	for _, q := range s.Queues {
		planned[q.Path] = true
	}
	fixed := map[string]float64{}
	for _, leaf := range s.Tree.Leaves() {
		if !planned[leaf.Path] {
			for p, v := range leaf.AbsCapacity {
				fixed[p] += v
			}
		}
	}
	out := make([]progress.PartitionSlots, 0, len(s.Parts))
	for _, p := range s.Parts {
		free := math.Max(0, 1-fixed[p.Name])
		if free >= 1 {
			out = append(out, p)
			continue
		}
		q := progress.PartitionSlots{Name: p.Name, Exclusive: p.Exclusive, Slots: map[string]int64{}}
		for t, n := range p.Slots {
			q.Slots[t] = int64(math.Floor(float64(n) * free))
		}
		out = append(out, q)
	}
	return out
}

// hierarchyStep turns the leaves' planned shares of each partition into
// shares for the whole tree: a parent holds what its subtree was planned,
// so parents' capacities move when their subtrees' demand or rates differ.
// Queues the plan leaves alone (pinned by the admin's tree: leaves not
// planned) anchor their ancestors: an ancestor of an anchored queue keeps
// its current share, so the anchored queue's percentage of its parent and
// its absolute share both stay as they are; its planned siblings divide
// what is left.
type hierarchyStep struct{}

func (hierarchyStep) Name() string { return "hierarchical shares" }

func (hierarchyStep) Run(s *decideState) error {
	planned := map[string]map[string]float64{} // leaf → partition → share 0..1
	for _, qp := range s.Plan.Queues {
		planned[qp.Path] = map[string]float64{}
		for p, pct := range qp.Capacity {
			planned[qp.Path][p] = pct / 100
		}
	}
	anchored := map[string]bool{}
	for _, leaf := range s.Tree.Leaves() {
		if _, ok := planned[leaf.Path]; ok {
			continue
		}
		for p := leaf.Path; p != ""; p = parentOf(p) {
			anchored[p] = true
		}
	}
	// Planned share of each subtree, per partition.
	subtree := map[string]map[string]float64{}
	for leaf, shares := range planned {
		for p := leaf; p != ""; p = parentOf(p) {
			if subtree[p] == nil {
				subtree[p] = map[string]float64{}
			}
			for part, v := range shares {
				subtree[p][part] += v
			}
		}
	}
	s.Shares = map[string]map[string]float64{}
	var walk func(q *schedconf.Queue, abs map[string]float64)
	walk = func(q *schedconf.Queue, abs map[string]float64) {
		if len(q.Children) == 0 {
			return
		}
		childAbs := map[string]map[string]float64{}
		for _, c := range q.Children {
			childAbs[c.Path] = map[string]float64{}
		}
		for _, part := range s.Tree.Labels {
			room := abs[part]
			var free []*schedconf.Queue
			sum := 0.0
			for _, c := range q.Children {
				if anchored[c.Path] {
					childAbs[c.Path][part] = c.AbsCapacity[part]
					room -= c.AbsCapacity[part]
					continue
				}
				free = append(free, c)
				sum += subtree[c.Path][part]
			}
			room = math.Max(room, 0)
			for _, c := range free {
				switch {
				case sum > 0:
					childAbs[c.Path][part] = room * subtree[c.Path][part] / sum
				default:
					// Nothing planned here: keep the current split.
					childAbs[c.Path][part] = c.AbsCapacity[part]
				}
			}
		}
		for _, c := range q.Children {
			if !anchored[c.Path] {
				s.Shares[c.Path] = childAbs[c.Path]
			}
			walk(c, childAbs[c.Path])
		}
	}
	rootAbs := map[string]float64{}
	for _, l := range s.Tree.Labels {
		rootAbs[l] = 1
	}
	walk(s.Tree.Root, rootAbs)
	return nil
}

// targetsStep turns planned shares into per-queue targets: each moved
// queue's capacity as a percentage of its parent in each partition it may
// use (the mode step re-expresses them for weight and absolute trees);
// planned leaves get maximum-capacity 100 (idle capacity stays borrowable)
// and the home partition the plan chose.
type targetsStep struct{}

func (targetsStep) Name() string { return "targets" }

func (targetsStep) Run(s *decideState) error {
	s.Targets = map[string]plan.QueueTarget{}
	plans := map[string]progress.QueuePlan{}
	for _, qp := range s.Plan.Queues {
		plans[qp.Path] = qp
	}
	paths := make([]string, 0, len(s.Shares))
	for p := range s.Shares {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, path := range paths {
		q := s.Tree.ByPath[path]
		parentAbs := func(part string) float64 {
			if q.Parent.Parent == nil {
				return 1
			}
			if sh, ok := s.Shares[q.Parent.Path]; ok {
				return sh[part]
			}
			return q.Parent.AbsCapacity[part]
		}
		t := plan.QueueTarget{Capacity: map[string]float64{}, MaxCapacity: map[string]float64{}}
		qp, isLeaf := plans[path]
		for part, abs := range s.Shares[path] {
			if part != "" && !q.CanUse(part) {
				continue
			}
			if isLeaf {
				if _, ok := qp.Capacity[part]; !ok {
					continue
				}
			} else if _, ok := q.Capacity[part]; !ok && abs == 0 {
				continue
			}
			pa := parentAbs(part)
			if pa <= 0 {
				continue // nothing to divide: the current values stand
			}
			t.Capacity[part] = math.Min(100, 100*abs/pa)
			if isLeaf {
				t.MaxCapacity[part] = 100
			}
		}
		if isLeaf {
			home := qp.Home
			t.DefaultLabelExpression = &home
			t.Reason = qp.Reason
		} else {
			t.Reason = "queue " + strings.TrimPrefix(path, "root.") + ": holds what its subtree was planned (hierarchical PS fairness)"
		}
		s.Targets[path] = t
	}
	return nil
}
