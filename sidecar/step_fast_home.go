package sidecar

import (
	"fmt"
	"maps"
	"slices"
)

// fastHomeStep keeps a queue whose job classes run at least
// goalRouteMinGain times faster on a labelled partition than on the
// default one homed there — busy (its running jobs' rates, as the plan
// has them) or idle (the class mix of its history, calibrate.QueueMix) —
// and sends the other queues the plan homed there back to the default
// partition, unless goalRouteStep routed a queue with goal jobs there.
//
// goalRouteStep routes a goal queue only once its goal job runs, and the
// route is a mutation that waits out the rate limit's 2-minute interval;
// a goal job's maps that start on the default partition keep their CPU
// containers to the end. Keeping the fast queue at home beforehand, the
// next goal job finds the route in place. The deadline bounds' least work
// is n·μ on the fastest node type (Malekimajd's n·μ, digest 001;
// sim.Scenario.MinWork). Measured on hetero-100-tight (`go run
// ./testenv/bench -only workloads -rows tight -seeds 3`, with the rows'
// decomposition): without it, train goal maps on CPU nodes were 0.126 of
// the goal jobs' minimum, half of it the train job submitted at 00:00:14
// into root.ml, idle at the first cycle, and the rest train jobs arriving
// while the plan had sent root.ml back (for adhoc's crypto jobs, 1.7× on
// gpu) or before the route was written. With it: the goal jobs'
// container-hours over their minimum 1.32× → 1.19× on seeds 1–3, 4–6 and
// 7–9 alike, goals met 169/171 → 170/171, 165/170 → 167/170, 167/172 →
// 168/172, jobs without goals 0.83× → 0.84× of stock.
//
// Its cost is the plan's ΣPS choice it overrides for a busy queue without
// goal jobs: on shift (`-rows shift -seeds 2`, same run) the sidecar's mean
// completion went from 0.83× to 0.85× of the best static, crypto's from
// 1m44s to 1m56s (stock 1m59s; no class >2% slower than stock); an
// idle-only variant (busy queues left to the plan; measured with the idle
// queue named, before the history's mix was wired) kept 1.20× on tight
// but met 167/171 and 163/170.
type fastHomeStep struct{}

func (fastHomeStep) Name() string { return "fast home" }

func (fastHomeStep) Run(s *decideState) error {
	goals := queuesWithGoals(s.Deadlines)
	busy := map[string]bool{}
	for _, q := range s.Queues {
		busy[q.Path] = q.Demand > 0
	}
	slots := map[string]map[string]int64{}
	for _, p := range s.Parts {
		slots[p.Name] = p.Slots
	}
	gain := func(i int, p string) float64 {
		qp := s.Plan.Queues[i]
		if busy[qp.Path] {
			if qp.Rate[""] <= 0 {
				return 0
			}
			return qp.Rate[p] / qp.Rate[""]
		}
		def := historyRate(s.Rates, s.QueueMix[qp.Path], slots[""])
		if def <= 0 {
			return 0
		}
		return historyRate(s.Rates, s.QueueMix[qp.Path], slots[p]) / def
	}
	for _, p := range slices.Sorted(maps.Keys(slots)) {
		if p == "" || heldForGoals(s, goals, p) {
			continue
		}
		best, bestGain := -1, 0.0
		for i, qp := range s.Plan.Queues {
			_, def := qp.Capacity[""]
			_, there := qp.Capacity[p]
			if qp.Calibrating != "" || !def || !there {
				continue
			}
			if g := gain(i, p); g >= goalRouteMinGain && (g > bestGain || g == bestGain && qp.Path < s.Plan.Queues[best].Path) {
				best, bestGain = i, g
			}
		}
		if best < 0 {
			continue
		}
		homeAlone(s, best, p,
			fmt.Sprintf("its jobs run %.1f× faster on %s than on the default partition: kept there, alone, for its next jobs", bestGain, p),
			fmt.Sprintf("back to the default partition: %s is kept for %s's jobs (%.1f× faster there)", p, s.Plan.Queues[best].Path, bestGain))
	}
	return nil
}

// heldForGoals: a queue with goal jobs, or one sent to calibrate, is homed
// in partition p by the plan so far.
func heldForGoals(s *decideState, goals map[string]bool, p string) bool {
	for _, qp := range s.Plan.Queues {
		if qp.Home == p && (goals[qp.Path] || qp.Calibrating != "") {
			return true
		}
	}
	return false
}

// historyRate is a class mix's mean rate over a partition's slots (each
// class's CR on each node type weighted by the type's slots; unknown
// rates count as 1), as the capacity planner rates a queue (progress
// buildModels); 0 when the mix or the partition is empty.
func historyRate(r interface {
	Rate(class, nodeType string) (float64, bool)
}, mix map[string]float64, slots map[string]int64) float64 {
	var num, den float64
	for class, share := range mix {
		for typ, n := range slots {
			v := 1.0
			if r != nil {
				if x, ok := r.Rate(class, typ); ok {
					v = x
				}
			}
			num += share * float64(n) * v
			den += share * float64(n)
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}
