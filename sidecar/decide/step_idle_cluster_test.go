package decide

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
)

// The idle-cluster step plans nothing only when nothing runs, waits or is
// about to arrive.
func TestIdleClusterStep(t *testing.T) {
	targets := func() map[string]plan.QueueTarget {
		return map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 70}}, "root.b": {Capacity: map[string]float64{"": 30}}}
	}
	for _, tc := range []struct {
		name     string
		demand   []int64
		arriving []deadlineClaim
		keep     bool
	}{
		{"no queue has demand: the live configuration stands", []int64{0, 0}, nil, false},
		{"one queue has demand: the plan goes on", []int64{0, 3}, nil, true},
		{"nothing runs but a goal job is arriving: the plan goes on", []int64{0, 0}, []deadlineClaim{{Queue: "root.a"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &decideState{Targets: targets(), Arriving: tc.arriving,
				Queues: []progress.QueueDemand{{Path: "root.a", Demand: tc.demand[0]}, {Path: "root.b", Demand: tc.demand[1]}}}
			if err := (idleClusterStep{}).Run(s); err != nil {
				t.Fatal(err)
			}
			if got := len(s.Targets) == 2; got != tc.keep {
				t.Fatalf("targets kept %v (%v), want %v", got, s.Targets, tc.keep)
			}
			if !tc.keep && (s.Targets == nil || len(s.Notes) != 1) {
				t.Fatalf("want an empty, writable target map and one note; got %v, notes %q", s.Targets, s.Notes)
			}
		})
	}
}
