package sidecar

// RecordCycle folds one cycle's report into the status board: the latest
// jobs, rates and queues, a point of the PS history, and the plan record.
func RecordCycle(b *StatusBoard, rep CycleReport) {
	b.Update(func(st *Status) {
		if rep.Snapshot.Time.IsZero() {
			return
		}
		d := rep.Decision
		st.Time, st.RM = rep.Snapshot.Time, rep.Snapshot.RM
		st.Jobs, st.Rates, st.Queues = d.Jobs, d.Rates, d.Queues
		st.SumPS, st.MinPS, st.BoundPS = d.SumPS, d.MinPS, d.BoundPS
		st.MutationsLastHour = rep.Outcome.MutationsLastHour
		pt := PSPoint{Time: rep.Snapshot.Time, SumPS: d.SumPS, MinPS: d.MinPS, Bound: d.BoundPS, Jobs: map[string]float64{}}
		for _, j := range d.Jobs {
			pt.Jobs[j.AppID] = j.PS
		}
		st.History = append(st.History, pt)
		if rep.Plan != nil && !rep.Plan.Empty() {
			pr := PlanRecord{Time: rep.Snapshot.Time, Result: rep.Outcome.Result, Changes: rep.Plan.Changes, Reasons: rep.Plan.Reasons}
			if rep.Err != nil {
				pr.Error = rep.Err.Error()
			}
			st.Plans = append(st.Plans, pr)
		}
	})
}
