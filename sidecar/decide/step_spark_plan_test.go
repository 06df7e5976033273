package decide

import (
	"math"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

func TestSparkPlanStep(t *testing.T) {
	// Queue root.ml runs a 300-map MapReduce train job (weight 300 from
	// the demand step), a Spark ml app on GPU executors, one on CPU
	// executors, one that asks the RM for GPUs before any executor runs,
	// and one the learner has not read yet.
	rates := progress.RateMap{
		"train": {"cpu": 1, "gpu": 4},
		"ml":    {"cpu": 1, "gpu": 1, "gpu/gpu": 3},
	}
	gpuAsk := map[string]cluster.AppPartitionUsage{"gpu": {Pending: cluster.Resource{MemoryMB: 8192, VCores: 2, GPUs: 4}}}
	apps := []cluster.App{
		{ID: "mr", Queue: "root.ml", State: cluster.AppRunning, Type: "MAPREDUCE", Name: "train"},
		{ID: "g", Queue: "root.ml", State: cluster.AppRunning, Type: "SPARK", Name: "ml"},
		{ID: "c", Queue: "root.ml", State: cluster.AppRunning, Type: "SPARK", Name: "ml"},
		{ID: "ask", Queue: "root.ml", State: cluster.AppRunning, Type: "SPARK", Name: "ml", UsageByPartition: gpuAsk},
		{ID: "new", Queue: "root.ml", State: cluster.AppRunning, Type: "SPARK", Name: "ml"},
	}
	views := []sparkobs.AppView{
		{AppID: "g", TasksActive: 8, TasksPending: 32, Executors: map[string]int{"gpu/gpu": 4}},
		{AppID: "c", TasksActive: 8, TasksPending: 12, Executors: map[string]int{"cpu": 4}},
		{AppID: "ask", TasksPending: 50},
	}
	for _, tc := range []struct {
		name    string
		views   func() []sparkobs.AppView
		wantMix map[string]float64
	}{
		{"no Spark learner: the demand step's mix", nil, map[string]float64{"train": 300, "ml": 4}},
		{"tasks left and GPU variants", func() []sparkobs.AppView { return views },
			map[string]float64{"train": 300, "ml": 20 + 1, "ml+gpu": 40 + 50}},
		{"nothing read yet: weight 1, GPUs from the RM's ask", func() []sparkobs.AppView { return nil },
			map[string]float64{"train": 300, "ml": 3, "ml+gpu": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &decideState{Snap: cluster.Snapshot{Apps: apps}, Rates: rates,
				ClassOf: func(a cluster.App) string { return a.Name },
				Queues:  []progress.QueueDemand{{Path: "root.ml", Demand: 50, Mix: map[string]float64{"train": 300, "ml": 4}}}}
			if err := (sparkPlanStep{Apps: tc.views}).Run(s); err != nil {
				t.Fatal(err)
			}
			got := s.Queues[0].Mix
			if len(got) != len(tc.wantMix) {
				t.Fatalf("mix %v, want %v", got, tc.wantMix)
			}
			for c, w := range tc.wantMix {
				if math.Abs(got[c]-w) > 1e-9 {
					t.Errorf("mix %v, want %v", got, tc.wantMix)
				}
			}
		})
	}
	// The GPU variant's rate: its GPU executor type's where known, else
	// its CPU executors'; other classes unchanged.
	r := sparkGPURates{Rates: rates}
	for _, c := range []struct {
		class, typ string
		want       float64
		known      bool
	}{
		{"ml+gpu", "gpu", 3, true},
		{"ml+gpu", "cpu", 1, true},
		{"ml+gpu", "other", 0, false},
		{"ml", "gpu", 1, true},
		{"train", "gpu", 4, true},
	} {
		if v, ok := r.Rate(c.class, c.typ); ok != c.known || ok && v != c.want {
			t.Errorf("Rate(%s, %s) = %v %v, want %v %v", c.class, c.typ, v, ok, c.want, c.known)
		}
	}
}
