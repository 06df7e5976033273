package experiment

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
)

// A change that undoes the previous change of the same property counts
// once per queue and plan; a second raise after a raise does not count.
func TestReversals(t *testing.T) {
	cap := func(q, from, to string) plan.Change {
		return plan.Change{Queue: q, Property: "capacity", From: from, To: to}
	}
	gpu := func(q, from, to string) plan.Change {
		return plan.Change{Queue: q, Property: "accessible-node-labels.gpu.capacity", From: from, To: to}
	}
	home := func(q, from, to string) plan.Change {
		return plan.Change{Queue: q, Property: "default-node-label-expression", From: from, To: to}
	}
	cases := []struct {
		name  string
		plans [][]plan.Change
		want  map[string]int
	}{
		{"raise twice", [][]plan.Change{{cap("a", "20", "30")}, {cap("a", "30", "40")}}, map[string]int{}},
		{"raise then lower", [][]plan.Change{{cap("a", "20", "30")}, {cap("a", "30", "25")}}, map[string]int{"a": 1}},
		{"two partitions flip in one plan count once", [][]plan.Change{{cap("a", "20", "30"), gpu("a", "2w", "3w")}, {cap("a", "30", "25"), gpu("a", "3w", "1w")}}, map[string]int{"a": 1}},
		{"home moved back", [][]plan.Change{{home("b", "", "gpu")}, {home("b", "gpu", "")}}, map[string]int{"b": 1}},
		{"absolute by memory", [][]plan.Change{{cap("c", "[memory=100,vcores=1]", "[memory=200,vcores=2]")}, {cap("c", "[memory=200,vcores=2]", "[memory=150,vcores=2]")}}, map[string]int{"c": 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newReversals()
			for _, p := range tc.plans {
				r.observe(&plan.Plan{Changes: p})
			}
			if len(r.count) != len(tc.want) {
				t.Fatalf("counts %v, want %v", r.count, tc.want)
			}
			for q, n := range tc.want {
				if r.count[q] != n {
					t.Errorf("%s: %d reversals, want %d", q, r.count[q], n)
				}
			}
		})
	}
}
