package sidecar

import "fmt"

// routeFitStep keeps a queue where it runs when the plan would route it
// (its home: default-node-label-expression) to a partition where its
// current work exceeds the guarantee the plan gives it there. Its jobs
// would run on borrowed capacity, the first the Capacity Scheduler takes
// back (a busy owner reclaims it; with preemption its containers are the
// first killed), so the move's predicted ΣPS gain is not there to take
// (issue 18: under load, small jobs paid for such moves). The queue keeps
// the guarantee it holds now in its current home, up to its work.
type routeFitStep struct{}

func (routeFitStep) Name() string { return "route fit" }

func (routeFitStep) Run(s *decideState) error {
	totals := partitionTotals(plannable(s))
	demand := map[string]int64{}
	current := map[string]string{}
	for _, q := range s.Queues {
		demand[q.Path], current[q.Path] = q.Demand, q.Home
	}
	floors := map[string]map[string]float64{}
	for i := range s.Plan.Queues {
		qp := &s.Plan.Queues[i]
		from, known := current[qp.Path]
		if !known || qp.Home == from || demand[qp.Path] == 0 {
			continue
		}
		there := qp.Capacity[qp.Home] / 100 * totals[qp.Home]
		if float64(demand[qp.Path]) <= there {
			continue
		}
		s.Notes = append(s.Notes, fmt.Sprintf("queue %s stays in partition %q: its %d containers of work exceed the %.0f it would be guaranteed in %q", qp.Path, from, demand[qp.Path], there, qp.Home))
		qp.Home = from
		qp.Calibrating = ""
		qp.Reason = fmt.Sprintf("kept in partition %q: its work exceeds the guarantee it would have elsewhere", from)
		leaf, ok := s.Tree.ByPath[qp.Path]
		if !ok || totals[from] <= 0 {
			continue
		}
		// What it holds now there, in the plan's unit, up to its work.
		live := leaf.AbsCapacity[from] * partitionTotals(s.Parts)[from]
		f := min(100, 100*min(live, float64(demand[qp.Path]))/totals[from])
		if f <= 0 {
			continue
		}
		if qp.Capacity == nil {
			qp.Capacity = map[string]float64{}
		}
		if _, ok := qp.Capacity[from]; !ok {
			qp.Capacity[from] = 0
		}
		if floors[from] == nil {
			floors[from] = map[string]float64{}
		}
		floors[from][qp.Path] = f
	}
	liftPlan(s, floors, "")
	return nil
}
