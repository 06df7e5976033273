package decide

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

func TestRouteGainStep(t *testing.T) {
	// servedState: 100 slots in each partition; a, b, c hold 60/20/20 of
	// both now, b runs on the default partition.
	wide := map[string]map[string]float64{"root.a": {"": 75}, "root.b": {"gpu": 40}, "root.c": {"": 25, "gpu": 60}}
	narrow := map[string]map[string]float64{"root.a": {"": 75}, "root.b": {"gpu": 10}, "root.c": {"": 25, "gpu": 90}}
	all := map[string]map[string]float64{"root.a": {"": 75}, "root.b": {"gpu": 100}, "root.c": {"": 25, "gpu": 0}}
	routed := map[string]float64{"root.a": 75, "root.c": 25}
	goal := time.Unix(1000, 0)
	for _, tc := range []struct {
		name        string
		demandB     int64
		jobsB       int // b's running jobs
		planned     map[string]map[string]float64
		heldGPU     float64 // b's share of gpu now
		rateGPU     float64 // b's rate on gpu; 1 on the default partition
		calibrating bool
		goalJob     bool
		wantHome    string
		want        map[string]float64 // default partition after the step
	}{
		{"work fits the guarantee there: routed", 30, 25, wide, 0.2, 1.1, false, false, "gpu", routed},
		{"work exceeds it, no fewer slots there (min(40 planned, 20 held)) than now (20): routed", 50, 25, wide, 0.2, 1.1, false, false, "gpu", routed},
		{"work exceeds it, 1.1×10 there < 1×20 now: stays, keeps what it holds", 50, 25, narrow, 0.2, 1.1, false, false,
			"", map[string]float64{"root.a": 75 - 20*75.0/100, "root.b": 20, "root.c": 25 - 20*25.0/100}},
		{"less work than it holds: 1.1×10 < 1×15, floor is its work", 15, 25, narrow, 0.2, 1.1, false, false,
			"", map[string]float64{"root.a": 75 - 15*75.0/100, "root.b": 15, "root.c": 25 - 15*25.0/100}},
		{"speed-up pays on the guarantee alone: 2.1×10 ≥ 1×20, routed", 50, 25, narrow, 0.2, 2.1, false, false, "gpu", routed},
		{"as many slots there at a slower rate, 0.4×20 < 1×20: routed", 50, 25, wide, 0.2, 0.4, false, false, "gpu", routed},
		{"plan gives 100% there but it holds 5 there now: 2.1×5 < 1×20, stays", 50, 25, all, 0.05, 2.1, false, false,
			"", map[string]float64{"root.a": 75 - 20*75.0/100, "root.b": 20, "root.c": 25 - 20*25.0/100}},
		{"large jobs (50 containers of 2 jobs): routed", 50, 2, narrow, 0.2, 1.1, false, false, "gpu", routed},
		{"rate there unknown: routed", 50, 25, narrow, 0.2, 0, false, false, "gpu", routed},
		{"sent to calibrate: routed", 50, 25, narrow, 0.2, 1.1, true, false, "gpu", routed},
		{"queue with a goal job: routed (the deadline steps own it)", 50, 25, narrow, 0.2, 1.1, false, true, "gpu", routed},
	} {
		s := servedState(t, map[string]int64{"root.a": 80, "root.b": tc.demandB, "root.c": 50}, tc.planned, map[string]string{"root.b": "gpu"})
		s.Tree.ByPath["root.b"].AbsCapacity["gpu"] = tc.heldGPU
		for range tc.jobsB {
			s.Snap.Apps = append(s.Snap.Apps, cluster.App{Queue: "root.b", State: cluster.AppRunning})
		}
		for i := range s.Plan.Queues {
			if qp := &s.Plan.Queues[i]; qp.Path == "root.b" {
				qp.Rate = map[string]float64{"": 1, "gpu": tc.rateGPU}
				if tc.calibrating {
					qp.Calibrating = "gpu"
				}
			}
		}
		if tc.goalJob {
			s.Deadlines = []deadline.QueueReport{{Queue: "root.b", Jobs: []deadline.JobReport{{Queue: "root.b", Deadline: &goal}}}}
		}
		if err := (routeGainStep{}).Run(s); err != nil {
			t.Fatal(err)
		}
		for _, qp := range s.Plan.Queues {
			if w, ok := tc.want[qp.Path]; ok && math.Abs(qp.Capacity[""]-w) > 1e-6 {
				t.Errorf("%s: %s at %.3f%%, want %.3f%%", tc.name, qp.Path, qp.Capacity[""], w)
			}
			if qp.Path == "root.b" && qp.Home != tc.wantHome {
				t.Errorf("%s: root.b home %q, want %q", tc.name, qp.Home, tc.wantHome)
			}
		}
		kept := len(s.Notes) > 0 && strings.Contains(s.Notes[0], "stays in partition")
		if kept != (tc.wantHome == "") {
			t.Errorf("%s: note %v, want %v (%v)", tc.name, kept, tc.wantHome == "", s.Notes)
		}
	}
}
