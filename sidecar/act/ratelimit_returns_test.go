package act

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
)

func adminOf(v string) *string { return &v }

// ReturnsOnly: every change lies between its live value and the admin's,
// in the admin's own mode, or sets a home back to the admin's.
func TestReturnsOnly(t *testing.T) {
	change := func(prop, from, to string, admin *string) plan.Change {
		return plan.Change{Queue: "root.prod.etl", Partition: "gpu", Property: prop, From: from, To: to, Admin: admin}
	}
	capGPU := plan.CapacityProp("gpu")
	maxGPU := plan.MaxCapacityProp("gpu")
	for _, tc := range []struct {
		name    string
		changes []plan.Change
		want    bool
	}{
		{"weight lowered toward the admin's", []plan.Change{change(capGPU, "91.75w", "75w", adminOf("67w"))}, true},
		{"weight lowered to the admin's", []plan.Change{change(capGPU, "91.75w", "67w", adminOf("67w"))}, true},
		{"weight lowered past the admin's", []plan.Change{change(capGPU, "91.75w", "60w", adminOf("67w"))}, false},
		{"weight raised away from the admin's", []plan.Change{change(capGPU, "75w", "91.75w", adminOf("67w"))}, false},
		{"percentage raised toward the admin's", []plan.Change{change(capGPU, "10", "20", adminOf("25"))}, true},
		{"a mode change is no return", []plan.Change{change(capGPU, "10", "20w", adminOf("25"))}, false},
		{"ceiling lowered back to the admin's", []plan.Change{change(maxGPU, "100", "60", adminOf("60"))}, true},
		{"absolute, every resource toward the admin's", []plan.Change{change(capGPU, "[memory=30000,vcores=7]", "[memory=25000,vcores=6]", adminOf("[memory=20000,vcores=4]"))}, true},
		{"absolute, vcores past the admin's", []plan.Change{change(capGPU, "[memory=30000,vcores=7]", "[memory=25000,vcores=3]", adminOf("[memory=20000,vcores=4]"))}, false},
		{"home back to the admin's (none)", []plan.Change{{Queue: "root.prod.etl", Property: "default-node-label-expression", From: "gpu", To: "", Admin: adminOf("")}}, true},
		{"home to another partition", []plan.Change{{Queue: "root.prod.etl", Property: "default-node-label-expression", From: "gpu", To: "gpu-b", Admin: adminOf("")}}, false},
		{"admin's value not known", []plan.Change{change(capGPU, "91.75w", "75w", nil)}, false},
		{"one change away spoils the plan", []plan.Change{change(capGPU, "91.75w", "75w", adminOf("67w")), {Queue: "root.prod.ml", Partition: "gpu", Property: capGPU, From: "8.25w", To: "5w", Admin: adminOf("33w")}}, false},
		{"a scheduler-wide property is no return", []plan.Change{change(capGPU, "91.75w", "75w", adminOf("67w")), {Property: "yarn.scheduler.capacity.rack-locality-full-reset", From: "", To: "false"}}, false},
		{"nothing to write", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ReturnsOnly(&plan.Plan{Changes: tc.changes}); got != tc.want {
				t.Errorf("ReturnsOnly = %v, want %v", got, tc.want)
			}
		})
	}
	withPriority := &plan.Plan{Changes: []plan.Change{change(capGPU, "91.75w", "75w", adminOf("67w"))}, Priorities: []plan.PriorityChange{{AppID: "a1", From: 0, To: 5}}}
	if ReturnsOnly(withPriority) {
		t.Errorf("a plan that also sets an app priority is not a return")
	}
}
