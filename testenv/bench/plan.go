package main

import (
	"fmt"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/progress"
)

// The plan row (issue 7, USER-ASKS "plan time < 0.5 s"): the PS-fair
// capacity plan for 200 leaf queues of 20 job classes over a default
// partition of 300,000 slots and a GPU partition of 16,000 (scale-10k's
// shape), every queue busy and able to use the GPU partition.
func init() {
	register(Bench{Area: "plan", Order: 45, Run: benchPlan, Rows: 1})
}

func benchPlan(o Options) ([]Row, error) {
	in := progress.PlanInput{Partitions: []progress.PartitionSlots{
		{Name: "", Slots: map[string]int64{"cpu": 300000}},
		{Name: "gpu", Slots: map[string]int64{"gpu": 16000}},
	}}
	rates := progress.RateMap{}
	for i := 0; i < 200; i++ {
		c := fmt.Sprintf("class%02d", i%20)
		rates[c] = map[string]float64{"cpu": 1, "gpu": 1 + float64(i%5)}
		in.Queues = append(in.Queues, progress.QueueDemand{Path: fmt.Sprintf("root.q%03d", i), Weight: 0.5,
			Demand: int64(100 + i*10), Mix: map[string]float64{c: 1}, Accessible: []string{"gpu"}})
	}
	in.Rates = rates
	var p progress.CapacityPlan
	m, err := measure(func() error { p = progress.Plan(in); return nil })
	if err != nil {
		return nil, err
	}
	homed := 0
	for _, q := range p.Queues {
		if q.Home == "gpu" {
			homed++
		}
	}
	return []Row{{Area: "plan", Name: "PS-fair capacity plan: 200 queues × 2 partitions, 20 classes",
		Figure: fmt.Sprintf("%s, %.0f MiB heap", m.Wall.Round(time.Millisecond), mib(m.PeakHeap)),
		Ratio:  fmt.Sprintf("ΣPS %.2f of bound %.2f; %d queues homed on gpu", p.SumPS, p.Bound, homed), Goal: "< 0.5 s"}}, nil
}
