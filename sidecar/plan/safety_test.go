package plan

import (
	"math"
	"testing"
)

func sum(m map[string]float64) float64 {
	s := 0.0
	for _, v := range m {
		s += v
	}
	return math.Round(s*100) / 100
}

func TestLimitStep(t *testing.T) {
	rules := SafetyRules{MaxStepPercent: 20, HysteresisPercent: 2}
	cases := []struct {
		name    string
		current map[string]float64
		want    map[string]float64
		floors  map[string]float64
		next    map[string]float64
		limited bool
		held    bool
	}{
		{"within step", map[string]float64{"a": 50, "b": 50}, map[string]float64{"a": 60, "b": 40}, nil,
			map[string]float64{"a": 60, "b": 40}, false, false},
		{"over step is scaled, sum kept", map[string]float64{"a": 50, "b": 50}, map[string]float64{"a": 100, "b": 0}, nil,
			map[string]float64{"a": 70, "b": 30}, true, false},
		{"three queues scaled by one factor", map[string]float64{"a": 40, "b": 40, "c": 20}, map[string]float64{"a": 80, "b": 10, "c": 10}, nil,
			map[string]float64{"a": 60, "b": 25, "c": 15}, true, false},
		{"under hysteresis holds", map[string]float64{"a": 50, "b": 50}, map[string]float64{"a": 51.5, "b": 48.5}, nil,
			map[string]float64{"a": 50, "b": 50}, false, true},
		{"floor raises a queue planned to zero", map[string]float64{"a": 50, "b": 50}, map[string]float64{"a": 100, "b": 0}, map[string]float64{"b": 5},
			map[string]float64{"a": 70, "b": 30}, true, false},
		{"floor reached at the end", map[string]float64{"a": 90, "b": 10}, map[string]float64{"a": 100, "b": 0}, map[string]float64{"b": 5},
			map[string]float64{"a": 95, "b": 5}, false, false},
		{"thirds round to an exact 100", map[string]float64{"a": 50, "b": 25, "c": 25}, map[string]float64{"a": 100.0 / 3, "b": 100.0 / 3, "c": 100.0 / 3}, nil,
			map[string]float64{"a": 33.34, "b": 33.33, "c": 33.33}, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := LimitStep(tc.current, tc.want, tc.floors, rules)
			for q, w := range tc.next {
				if math.Abs(got.Next[q]-w) > 1e-9 {
					t.Errorf("%s = %v, want %v (all: %v)", q, got.Next[q], w, got.Next)
				}
			}
			if got.Limited != tc.limited || got.Held != tc.held {
				t.Errorf("limited=%v held=%v, want %v %v", got.Limited, got.Held, tc.limited, tc.held)
			}
			if s := sum(got.Next); s != sum(tc.current) {
				t.Errorf("sum %v, want %v", s, sum(tc.current))
			}
		})
	}
}

// A plan that would exceed the step limit converges over cycles, never
// moving any queue more than the limit in one.
func TestLimitStepConvergesWithinLimit(t *testing.T) {
	rules := SafetyRules{MaxStepPercent: 10, HysteresisPercent: 1}
	cur := map[string]float64{"a": 10, "b": 45, "c": 45}
	want := map[string]float64{"a": 80, "b": 10, "c": 10}
	for cycle := 0; cycle < 20; cycle++ {
		step := LimitStep(cur, want, nil, rules)
		for q := range cur {
			if d := math.Abs(step.Next[q] - cur[q]); d > rules.MaxStepPercent+1e-9 {
				t.Fatalf("cycle %d: %s moved %v > limit", cycle, q, d)
			}
		}
		if sum(step.Next) != 100 {
			t.Fatalf("cycle %d: sum %v", cycle, sum(step.Next))
		}
		cur = step.Next
	}
	if math.Abs(cur["a"]-80) > 1 {
		t.Fatalf("did not converge: %v", cur)
	}
}
