package sidecar

import (
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
)

func TestFastHomeStep(t *testing.T) {
	goal := time.Unix(1000, 0)
	type q struct {
		path, home  string
		gpuRate     float64 // busy: rate on gpu, 1 on the default partition
		idle        bool    // idle: rates from its history's mix
		mix         map[string]float64
		goalJob     bool
		calibrating bool
		noDefault   bool
	}
	// History rates: train 4× on gpu nodes, crypto 2×; cpu nodes 1.
	rates := progress.RateMap{"train": {"gpu": 4, "cpu": 1}, "crypto": {"gpu": 2, "cpu": 1}}
	for _, tc := range []struct {
		name  string
		qs    []q
		homes map[string]string // after the step
	}{
		{"idle queue whose history runs 4× on gpu: kept there, the plan's gpu queue sent back",
			[]q{{path: "root.ml", idle: true, mix: map[string]float64{"train": 10}}, {path: "root.adhoc", home: "gpu", gpuRate: 1.7}},
			map[string]string{"root.ml": "gpu", "root.adhoc": ""}},
		{"idle queue with a mixed history under the gain (0.5·4 + 0.5·1 = 2.5×): nothing moves",
			[]q{{path: "root.ml", idle: true, mix: map[string]float64{"train": 1, "sort": 1}}, {path: "root.adhoc", home: "gpu", gpuRate: 1.7}},
			map[string]string{"root.ml": "", "root.adhoc": "gpu"}},
		{"idle queue without history: nothing moves",
			[]q{{path: "root.ml", idle: true}, {path: "root.adhoc", home: "gpu", gpuRate: 1.7}},
			map[string]string{"root.ml": "", "root.adhoc": "gpu"}},
		{"busy queue 4× on gpu without goal jobs: kept there",
			[]q{{path: "root.ml", gpuRate: 4}, {path: "root.adhoc", home: "gpu", gpuRate: 1.7}},
			map[string]string{"root.ml": "gpu", "root.adhoc": ""}},
		{"a goal queue goalRouteStep routed there keeps the partition",
			[]q{{path: "root.ml", gpuRate: 4}, {path: "root.x", home: "gpu", gpuRate: 3.5, goalJob: true}},
			map[string]string{"root.ml": "", "root.x": "gpu"}},
		{"a queue sent to calibrate there keeps it",
			[]q{{path: "root.ml", gpuRate: 4}, {path: "root.x", home: "gpu", calibrating: true}},
			map[string]string{"root.ml": "", "root.x": "gpu"}},
		{"two fast queues: the larger gain takes it",
			[]q{{path: "root.a", home: "gpu", gpuRate: 3.5}, {path: "root.b", gpuRate: 5}},
			map[string]string{"root.a": "", "root.b": "gpu"}},
		{"a queue with no default-partition capacity is not sent back",
			[]q{{path: "root.ml", gpuRate: 4}, {path: "root.g", home: "gpu", gpuRate: 1, noDefault: true}},
			map[string]string{"root.ml": "gpu", "root.g": "gpu"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &decideState{Rates: rates, QueueMix: map[string]map[string]float64{},
				Parts: []progress.PartitionSlots{{Name: "", Slots: map[string]int64{"cpu": 100}}, {Name: "gpu", Slots: map[string]int64{"gpu": 10}}}}
			for _, x := range tc.qs {
				qp := progress.QueuePlan{Path: x.path, Home: x.home, Capacity: map[string]float64{"": 25, "gpu": 25},
					Rate: map[string]float64{"": 1, "gpu": x.gpuRate}}
				demand := int64(10)
				if x.idle {
					demand, qp.Rate = 0, map[string]float64{"": 1, "gpu": 1}
					if x.mix != nil {
						s.QueueMix[x.path] = x.mix
					}
				}
				s.Queues = append(s.Queues, progress.QueueDemand{Path: x.path, Demand: demand})
				if x.noDefault {
					delete(qp.Capacity, "")
				}
				if x.calibrating {
					qp.Calibrating = "gpu"
				}
				s.Plan.Queues = append(s.Plan.Queues, qp)
				if x.goalJob {
					s.Deadlines = append(s.Deadlines, deadline.QueueReport{Queue: x.path, Jobs: []deadline.JobReport{{Queue: x.path, Deadline: &goal}}})
				}
			}
			if err := (fastHomeStep{}).Run(s); err != nil {
				t.Fatal(err)
			}
			for _, qp := range s.Plan.Queues {
				if want := tc.homes[qp.Path]; qp.Home != want {
					t.Errorf("%s home %q, want %q (reason %q)", qp.Path, qp.Home, want, qp.Reason)
				}
			}
		})
	}
}
