package decide

import (
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
)

import "testing"

// Each value is charged to the last step that set or changed it; a value
// a later step leaves alone keeps its setter; one removed loses it.
func TestProvenance(t *testing.T) {
	home := func(h string) *string { return &h }
	steps := []struct {
		name    string
		targets map[string]plan.QueueTarget
	}{
		{"targets", map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 40, "gpu": 100}, DefaultLabelExpression: home("gpu")}}},
		{"guarantee bands", map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 45, "gpu": 100}, DefaultLabelExpression: home("gpu")}}},
		{"do no harm", map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 45, "gpu": 100}, DefaultLabelExpression: home("")}}},
		{"mode encoding", map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 45}, DefaultLabelExpression: home(""),
			Encoding: map[string]plan.Encoding{"": {}}}}},
	}
	setBy := map[string]string{}
	prev := targetValues(nil)
	for _, st := range steps {
		cur := targetValues(st.targets)
		chargeChanges(setBy, prev, cur, st.name)
		prev = cur
	}
	want := map[string]string{
		"root.a capacity":                      "guarantee bands",
		"root.a default-node-label-expression": "do no harm",
	}
	if len(setBy) != len(want) {
		t.Fatalf("setBy %v, want %v", setBy, want)
	}
	for k, v := range want {
		if setBy[k] != v {
			t.Errorf("%s set by %q, want %q", k, setBy[k], v)
		}
	}
}
