package decide

import (
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
)

func TestGoalRouteStep(t *testing.T) {
	type q = routeQueue
	for _, tc := range []struct {
		name  string
		qs    []q
		homes map[string]string // after the step
	}{
		{"goal queue 4× on gpu: routed, the queue homed there sent back",
			[]q{{path: "root.ml", gpuRate: 4, goalJob: true}, {path: "root.adhoc", home: "gpu", gpuRate: 1.7}},
			map[string]string{"root.ml": "gpu", "root.adhoc": ""}},
		{"gain below goalRouteMinGain: nothing moves",
			[]q{{path: "root.adhoc", gpuRate: 2, goalJob: true}, {path: "root.ml", home: "gpu", gpuRate: 4}},
			map[string]string{"root.adhoc": "", "root.ml": "gpu"}},
		{"no goal job: the plan's homes stay",
			[]q{{path: "root.ml", gpuRate: 4}, {path: "root.adhoc", home: "gpu", gpuRate: 1.7}},
			map[string]string{"root.ml": "", "root.adhoc": "gpu"}},
		{"two goal queues gain: the larger gain takes the partition",
			[]q{{path: "root.a", home: "gpu", gpuRate: 3.5, goalJob: true}, {path: "root.b", gpuRate: 5, goalJob: true}},
			map[string]string{"root.a": "", "root.b": "gpu"}},
		{"equal gains: the first path takes it",
			[]q{{path: "root.b", home: "gpu", gpuRate: 4, goalJob: true}, {path: "root.a", gpuRate: 4, goalJob: true}},
			map[string]string{"root.a": "gpu", "root.b": ""}},
		{"already home there: stays, others sent back",
			[]q{{path: "root.ml", home: "gpu", gpuRate: 4, goalJob: true}, {path: "root.etl", home: "gpu", gpuRate: 1}},
			map[string]string{"root.ml": "gpu", "root.etl": ""}},
		{"a queue sent to calibrate there is not moved, nor routed",
			[]q{{path: "root.ml", gpuRate: 4, goalJob: true}, {path: "root.x", home: "gpu", gpuRate: 0, calibrating: true},
				{path: "root.y", gpuRate: 6, goalJob: true, calibrating: true}},
			map[string]string{"root.ml": "gpu", "root.x": "gpu", "root.y": ""}},
		{"a queue with no default-partition capacity stays where it is",
			[]q{{path: "root.ml", gpuRate: 4, goalJob: true}, {path: "root.g", home: "gpu", gpuRate: 1, noDefault: true}},
			map[string]string{"root.ml": "gpu", "root.g": "gpu"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &decideState{}
			addRouteQueues(s, tc.qs)
			if err := (goalRouteStep{}).Run(s); err != nil {
				t.Fatal(err)
			}
			checkHomes(t, s, tc.homes)
		})
	}
}

// routeQueue is one queue of goalRouteStep's tests: capacity 25 in the
// default and the gpu partitions.
type routeQueue struct {
	path, home  string
	gpuRate     float64 // rate on gpu; 1 on the default partition
	goalJob     bool
	calibrating bool
	noDefault   bool // no capacity in the default partition
}

// addRouteQueues adds the queues to the state's plan and deadline reports.
func addRouteQueues(s *decideState, qs []routeQueue) {
	goal := time.Unix(1000, 0)
	for _, x := range qs {
		qp := progress.QueuePlan{Path: x.path, Home: x.home, Capacity: map[string]float64{"": 25, "gpu": 25},
			Rate: map[string]float64{"": 1, "gpu": x.gpuRate}}
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
}

// checkHomes compares each queue's home after a step with want's.
func checkHomes(t *testing.T, s *decideState, want map[string]string) {
	t.Helper()
	for _, qp := range s.Plan.Queues {
		if w := want[qp.Path]; qp.Home != w {
			t.Errorf("%s home %q, want %q (reason %q)", qp.Path, qp.Home, w, qp.Reason)
		}
	}
}
