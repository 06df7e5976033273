package decide

import (
	"maps"
	"slices"

	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
)

// servedFirstStep keeps a busy queue whose current work fits within the
// admin's guarantee in its home partition, and that the plan leaves
// there, at that guarantee: the Capacity Scheduler serves a queue below its guarantee first,
// so its jobs start as soon as containers free, as under stock. The PS
// plan would otherwise shift the guarantee to queues whose classes gain
// more per container elsewhere, and the small interactive queues — whose
// work always fits — paid for it (issue 18: fb-2009-saturated, fb-tiny
// 1.42× and fb-small 1.16× of stock). The guarantee is lent out when the
// queue does not use it, so a larger queue loses only what this one runs.
// Idle queues and queues with goal jobs are the deadline step's floors.
//
// Ablation (issue 32: keep a step only if removing it costs a held-out
// figure), on the tuning clusters 1–8 (gen.TuningSeeds), one run seed, at
// 732e70b: go run ./testenv/bench -only heldout -heldout-tuning -heldout-n 8
// -heldout-ablate "route gain,goal route,served first,goal jobs keep what
// they run,calibrationReturn,restores" (26 min wall on a shared 2-CPU
// machine; full sidecar: 2/8 clusters with a class >5% slower than stock,
// 3/8 >2%, mean 0.667× stock, 0.881× best static, worst class 1.48×, 10.92
// reversals/queue-hour): removing it costs the mean: 0.672× stock and 0.900×
// best static against 0.667× and 0.881× (1.007× the full sidecar's); the
// other figures equal.
type servedFirstStep struct {
	Seen map[string]SeenValue
}

func (servedFirstStep) Name() string { return "served first" }

func (st servedFirstStep) Run(s *decideState) error {
	full := partitionTotals(s.Parts)
	totals := partitionTotals(plannable(s))
	index := map[string]int{}
	for i, qp := range s.Plan.Queues {
		index[qp.Path] = i
	}
	floors := map[string]map[string]float64{}
	for _, q := range s.Queues {
		i, planned := index[q.Path]
		if !planned || q.Demand == 0 || q.Pinned {
			continue
		}
		v, ok := st.Seen[SeenKey(q.Path, q.Home)]
		if !ok || v.Unset || totals[q.Home] <= 0 {
			continue
		}
		promise := v.AbsShare * full[q.Home]
		if float64(q.Demand) > promise {
			continue // more work than its promise: the plan divides the rest
		}
		qp := &s.Plan.Queues[i]
		if qp.Home != q.Home {
			continue // routed where the plan predicts a gain: not this step's to undo
		}
		if qp.Capacity == nil {
			qp.Capacity = map[string]float64{}
		}
		if _, ok := qp.Capacity[q.Home]; !ok {
			qp.Capacity[q.Home] = 0
		}
		if floors[q.Home] == nil {
			floors[q.Home] = map[string]float64{}
		}
		floors[q.Home][q.Path] = min(100, 100*promise/totals[q.Home])
	}
	liftPlan(s, floors, "kept at the admin's guarantee in its home: its work fits within it (served first)")
	return nil
}

// liftPlan lifts the plan's capacities to the floors (percent of the
// plannable partition), taking the difference from the other queues above
// their floors in proportion (applyFloors). A lifted queue gets reason
// when it is not empty.
func liftPlan(s *decideState, floors map[string]map[string]float64, reason string) {
	for _, part := range slices.Sorted(maps.Keys(floors)) {
		want := map[string]float64{}
		for _, qp := range s.Plan.Queues {
			if v, ok := qp.Capacity[part]; ok {
				want[qp.Path] = v
			}
		}
		lifted := plan.ApplyFloors(want, floors[part])
		for i := range s.Plan.Queues {
			qp := &s.Plan.Queues[i]
			v, ok := lifted[qp.Path]
			if !ok || v == qp.Capacity[part] {
				continue
			}
			if v > qp.Capacity[part] && reason != "" {
				qp.Reason = reason
			}
			qp.Capacity[part] = v
		}
	}
}

// partitionTotals is the slots of each partition, all node types.
func partitionTotals(parts []progress.PartitionSlots) map[string]float64 {
	out := map[string]float64{}
	for _, p := range parts {
		for _, n := range p.Slots {
			out[p.Name] += float64(n)
		}
	}
	return out
}
