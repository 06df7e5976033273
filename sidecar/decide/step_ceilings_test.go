package decide

import (
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// TestCeilingsStep: root.{a,b}; the admin capped a at 30% (b has no
// maximum-capacity, i.e. 100). The targets step planned 100 for both.
func TestCeilingsStep(t *testing.T) {
	conf := schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": "20", pre + "root.a.maximum-capacity": "30",
		pre + "root.b.capacity": "80"}
	tree := mustTree(t, conf)
	admin, err := (&MemorySeen{}).Observe(tree)
	if err != nil {
		t.Fatal(err)
	}
	if v := admin[SeenKey("root.a", "")]; v.MaxShare == nil || *v.MaxShare != 30 {
		t.Fatalf("first-seen root.a ceiling %v, want 30", v.MaxShare)
	}
	// The same queue after the sidecar lifted a's ceiling to 45 (it wrote
	// capacity 45): the admin's 30 is what is kept.
	lifted := mustTree(t, schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": "45", pre + "root.a.maximum-capacity": "45",
		pre + "root.b.capacity": "55"})
	for _, tc := range []struct {
		name  string
		tree  *schedconf.Tree
		raise bool
		seen  map[string]SeenValue
		wantA float64
		wantB float64
	}{
		{"admin's ceilings kept", tree, false, admin, 30, 100},
		{"raising allowed: 100 stays", tree, true, admin, 100, 100},
		{"lifted by the sidecar: back to the admin's 30", lifted, false, admin, 30, 100},
		{"no first-seen ceiling (older file): the live value", lifted, false, map[string]SeenValue{}, 45, 100},
	} {
		s := &decideState{Tree: tc.tree, Targets: map[string]plan.QueueTarget{
			"root.a": {Capacity: map[string]float64{"": 20}, MaxCapacity: map[string]float64{"": 100}},
			"root.b": {Capacity: map[string]float64{"": 80}, MaxCapacity: map[string]float64{"": 100}},
		}}
		if err := (ceilingsStep{Raise: tc.raise, Seen: tc.seen}).Run(s); err != nil {
			t.Fatal(err)
		}
		if a, b := s.Targets["root.a"].MaxCapacity[""], s.Targets["root.b"].MaxCapacity[""]; a != tc.wantA || b != tc.wantB {
			t.Errorf("%s: maximum-capacity a %g b %g, want %g %g", tc.name, a, b, tc.wantA, tc.wantB)
		}
	}
}

// TestCeilingViolations: plans built on root.{a,b} with a capped at 30 by
// the admin.
func TestCeilingViolations(t *testing.T) {
	base := schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": "20", pre + "root.a.maximum-capacity": "30",
		pre + "root.b.capacity": "80"}
	first, err := (&MemorySeen{}).Observe(mustTree(t, base))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name         string
		capA, ceilA  float64
		wantViolates bool
	}{
		{"the admin's ceiling kept", 25, 30, false},
		{"lifted only to the capacity written", 45, 30, false},
		{"raised to 100", 25, 100, true},
		{"raised above the capacity written", 45, 60, true},
	} {
		targets := map[string]plan.QueueTarget{
			"root.a": {Capacity: map[string]float64{"": tc.capA}, MaxCapacity: map[string]float64{"": tc.ceilA}},
			"root.b": {Capacity: map[string]float64{"": 100 - tc.capA}, MaxCapacity: map[string]float64{"": 100}},
		}
		plan, err := plan.BuildPlan(time.Unix(0, 0), base, 1, targets, plan.SafetyRules{MaxStepPercent: 100})
		if err != nil {
			t.Fatal(err)
		}
		if got := CeilingViolations(plan, first); (len(got) > 0) != tc.wantViolates {
			t.Errorf("%s: violations %v, want some: %v", tc.name, got, tc.wantViolates)
		}
	}
}
