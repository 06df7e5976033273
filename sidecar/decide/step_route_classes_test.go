package decide

import (
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
)

// spark-mixed's case in small: root.b mixes train (4× on the GPU nodes
// "g") with a class the GPU nodes run no faster than the default
// partition's "t" nodes; the plan routes b to gpu for train.
func TestRouteClassesStep(t *testing.T) {
	now := time.Unix(100000, 0)
	rates := progress.RateMap{
		"train": {"t": 1, "g": 4},
		"cpu":   {"t": 1.2, "g": 1},
		"flat":  {"t": 1, "g": 0.99},
		"fresh": {"t": 1}, // never ran on g
	}
	for _, tc := range []struct {
		name     string
		running  map[string]float64 // b's mix now
		ran      map[string]time.Duration
		history  []string // b's MapReduce jobs' classes, an hour ago
		live     string   // b's home now
		urgent   bool
		wantHome string
		restore  bool
	}{
		{"train alone: routed", map[string]float64{"train": 10}, nil, nil, "", false, "gpu", false},
		{"a running class slower there: stays home", map[string]float64{"train": 10, "cpu": 3}, nil, nil, "", false, "", false},
		{"within the margin: routed", map[string]float64{"train": 10, "flat": 3}, nil, nil, "", false, "gpu", false},
		{"unmeasured there (calibration): routed", map[string]float64{"train": 10, "fresh": 3}, nil, nil, "", false, "gpu", false},
		{"a GPU Spark class is not judged", map[string]float64{"train": 10, "cpu" + SparkGPUClassSuffix: 3}, nil, nil, "", false, "gpu", false},
		{"the slower class ran an hour ago (Spark, seen by the step)", map[string]float64{"train": 10}, map[string]time.Duration{"cpu": time.Hour}, nil, "", false, "", false},
		{"the slower class ran two days ago: routed", map[string]float64{"train": 10}, map[string]time.Duration{"cpu": 48 * time.Hour}, nil, "", false, "gpu", false},
		{"the slower class in the history's jobs", map[string]float64{"train": 10}, nil, []string{"cpu"}, "", false, "", false},
		{"a live route that slows a class goes back as a restore", map[string]float64{"train": 10, "cpu": 3}, nil, nil, "gpu", false, "", true},
		{"raised for a deadline at risk: routed", map[string]float64{"train": 10, "cpu": 3}, nil, nil, "", true, "gpu", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := servedState(t, map[string]int64{"root.a": 80, "root.b": 20, "root.c": 50}, nil, nil)
			s.Snap.Time = now
			s.Rates = rates
			s.Tree.ByPath["root.b"].DefaultLabelExpression = tc.live
			for i := range s.Queues {
				if s.Queues[i].Path == "root.b" {
					s.Queues[i].Mix = tc.running
				}
			}
			gpu := "gpu"
			s.Targets = map[string]plan.QueueTarget{"root.b": {DefaultLabelExpression: &gpu}}
			if tc.urgent {
				s.Urgent = map[string]string{"root.b": "job j at risk"}
			}
			ran := leafClasses{}
			for c, ago := range tc.ran {
				ran.saw("root.b", c, now.Add(-ago))
			}
			var recs []calibrate.JobRecord
			for _, c := range tc.history {
				recs = append(recs, calibrate.JobRecord{Queue: "b", Class: c, Start: now.Add(-time.Hour), Maps: 10})
			}
			seen := map[string]SeenValue{}
			home := ""
			seen[SeenKey("root.b", "")] = SeenValue{Home: &home}
			st := routeClassesStep{Seen: seen, Ran: ran, Jobs: func() []calibrate.JobRecord { return recs }}
			if err := st.Run(s); err != nil {
				t.Fatal(err)
			}
			if got := *s.Targets["root.b"].DefaultLabelExpression; got != tc.wantHome {
				t.Errorf("home %q, want %q (notes %v)", got, tc.wantHome, s.Notes)
			}
			if kept := tc.wantHome == ""; kept != (len(s.Notes) == 1 && strings.Contains(s.Notes[0], "route slows no class")) {
				t.Errorf("notes %v", s.Notes)
			}
			if _, ok := s.Restores["root.b"]; ok != tc.restore {
				t.Errorf("restore %v, want %v", ok, tc.restore)
			}
			if _, ok := ran["root.b"]["train"]; !ok {
				t.Errorf("running class not remembered: %v", ran)
			}
		})
	}
}
