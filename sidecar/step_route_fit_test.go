package sidecar

import (
	"math"
	"strings"
	"testing"
)

func TestRouteFitStep(t *testing.T) {
	for _, tc := range []struct {
		name     string
		demandB  int64
		planned  map[string]map[string]float64
		wantHome string
		want     map[string]float64 // default partition after the step
		note     bool
	}{
		{"work fits the guarantee there: routed",
			30, map[string]map[string]float64{"root.a": {"": 75}, "root.b": {"gpu": 40}, "root.c": {"": 25, "gpu": 60}},
			"gpu", map[string]float64{"root.a": 75, "root.c": 25}, false},
		{"work exceeds the guarantee there: stays, keeps what it holds up to its work",
			50, map[string]map[string]float64{"root.a": {"": 75}, "root.b": {"gpu": 40}, "root.c": {"": 25, "gpu": 60}},
			"", map[string]float64{"root.a": 75 - 20*75.0/100, "root.b": 20, "root.c": 25 - 20*25.0/100}, true},
		{"stays with less work than its guarantee: floor is its work",
			15, map[string]map[string]float64{"root.a": {"": 75}, "root.b": {"gpu": 10}, "root.c": {"": 25, "gpu": 90}},
			"", map[string]float64{"root.a": 75 - 15*75.0/100, "root.b": 15, "root.c": 25 - 15*25.0/100}, true},
	} {
		s := servedState(t, map[string]int64{"root.a": 80, "root.b": tc.demandB, "root.c": 50}, tc.planned, map[string]string{"root.b": "gpu"})
		if err := (routeFitStep{}).Run(s); err != nil {
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
		if got := len(s.Notes) > 0 && strings.Contains(s.Notes[0], "stays in partition"); got != tc.note {
			t.Errorf("%s: note %v, want %v (%v)", tc.name, got, tc.note, s.Notes)
		}
	}
}
