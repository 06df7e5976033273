package act

import (
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
)

// The flap guard: a reversal within the window needs the larger gain; one
// after the window, one with that gain, an urgent one, or a further move
// in the same direction passes.
func TestFlapGuard(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	raise := &plan.Plan{Changes: []plan.Change{{Queue: "root.a", Property: "capacity", From: "40", To: "60"}}}
	home := &plan.Plan{Changes: []plan.Change{{Queue: "root.a", Property: "default-node-label-expression", From: "", To: "gpu"}}}
	pl := func(from, to string, gain float64, urgent bool) *plan.Plan {
		p := &plan.Plan{Changes: []plan.Change{{Queue: "root.a", Property: "capacity", From: from, To: to}},
			Predicted: map[string]float64{"sum_ps_now": 1, "sum_ps": 1 + gain/100}}
		if urgent {
			p.Urgent = map[string]string{"root.a": "deadline"}
		}
		return p
	}
	cases := []struct {
		name   string
		first  *plan.Plan
		then   *plan.Plan
		after  time.Duration
		window time.Duration
		allow  bool
	}{
		{"lowered 5 min after a raise, 3% gain: held", raise, pl("60", "50", 3, false), 5 * time.Minute, 0, false},
		{"lowered 5 min after a raise, 12% gain: passes", raise, pl("60", "50", 12, false), 5 * time.Minute, 0, true},
		{"lowered 20 min after a raise: passes", raise, pl("60", "50", 3, false), 20 * time.Minute, 0, true},
		{"raised again: not a reversal", raise, pl("60", "70", 3, false), 5 * time.Minute, 0, true},
		{"raised back within the window for a deadline at risk: passes", &plan.Plan{Changes: []plan.Change{{Queue: "root.a", Property: "capacity", From: "60", To: "40"}}}, pl("40", "50", 0, true), 5 * time.Minute, 0, true},
		{"home moved back within the window: held", home, &plan.Plan{Changes: []plan.Change{{Queue: "root.a", Property: "default-node-label-expression", From: "gpu", To: ""}},
			Predicted: map[string]float64{"sum_ps_now": 1, "sum_ps": 1.02}}, 5 * time.Minute, 0, false},
		{"guard off: passes", raise, pl("60", "50", 3, false), 5 * time.Minute, -1, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &RateLimit{FlapWindow: tc.window}
			r.Record(t0)
			r.RecordChanges(t0, tc.first)
			ok, why := r.Allow(t0.Add(tc.after), tc.then)
			if ok != tc.allow {
				t.Fatalf("allow %v (%s), want %v", ok, why, tc.allow)
			}
			if !ok && !strings.Contains(why, "flap_window") {
				t.Errorf("reason %q does not name flap_window", why)
			}
		})
	}
}
