package sidecar

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/progress"
)

func TestFastHomeStep(t *testing.T) {
	type q = routeQueue
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
			addRouteQueues(s, tc.qs)
			if err := (fastHomeStep{}).Run(s); err != nil {
				t.Fatal(err)
			}
			checkHomes(t, s, tc.homes)
		})
	}
}
