package decide

import (
	"slices"

	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// TestReversalHoldStep on root.{a,b}: the admin's 50/50; the sidecar
// raised a from 50 to 70 (b 50 → 30) at t0.
func TestReversalHoldStep(t *testing.T) {
	before := mustTree(t, schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": "50", pre + "root.b.capacity": "50"})
	after := mustTree(t, schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": "70", pre + "root.b.capacity": "30"})
	seen := map[string]SeenValue{SeenKey("root.a", ""): {Share: 50, AbsShare: 0.5}, SeenKey("root.b", ""): {Share: 50, AbsShare: 0.5}}
	t0 := time.Unix(1_700_000_000, 0)
	for _, tc := range []struct {
		name     string
		at       time.Duration // since the raise
		a        float64       // planned a (b = 100 − a)
		urgent   string
		restore  string
		hold     time.Duration
		demandA  int64
		wantA    float64
		wantNote bool
	}{
		{"further the same way: passes", 5 * time.Minute, 75, "", "", 0, 10, 75, false},
		{"jitter back toward the admin, 2 points: held", 5 * time.Minute, 68, "", "", 0, 10, 70, true},
		{"back toward the admin by 6 points, short of it: held", 5 * time.Minute, 64, "", "", 0, 10, 70, true},
		{"back by 10 points (a large move): passes", 5 * time.Minute, 60, "", "", 0, 10, 60, false},
		{"all the way back to the admin's 50: passes", 5 * time.Minute, 50, "", "", 0, 10, 50, false},
		{"past the admin's value by a large move: passes", 5 * time.Minute, 45, "", "", 0, 10, 45, false},
		{"b restored (b is raised back): passes", 5 * time.Minute, 68, "", "root.b", 0, 10, 68, false},
		{"a deadline at risk in b: passes", 5 * time.Minute, 68, "root.b", "", 0, 10, 68, false},
		{"after the hold: passes", 61 * time.Minute, 68, "", "", 0, 10, 68, false},
		{"a idle, its raise returned: kept", 5 * time.Minute, 50, "", "", 0, 0, 70, true},
		{"a idle, b restored: a's cut pays and passes", 5 * time.Minute, 50, "", "root.b", 0, 0, 50, false},
		{"hold off: passes", 5 * time.Minute, 68, "", "", -1, 10, 68, false},
	} {
		moves := capMoves{}
		moves.observe(before, t0.Add(-time.Hour))
		moves.observe(after, t0)
		s := &decideState{Tree: after, Snap: cluster.Snapshot{Time: t0.Add(tc.at)}, Targets: map[string]plan.QueueTarget{
			"root.a": {Capacity: map[string]float64{"": tc.a}}, "root.b": {Capacity: map[string]float64{"": 100 - tc.a}}},
			Urgent: map[string]string{}, Restores: map[string]string{},
			Queues: []progress.QueueDemand{{Path: "root.a", Demand: tc.demandA}, {Path: "root.b", Demand: 10}}}
		if tc.urgent != "" {
			s.Urgent[tc.urgent] = "goal"
		}
		if tc.restore != "" {
			s.Restores[tc.restore] = "guarantee"
		}
		hold := tc.hold
		if hold == 0 {
			hold = time.Hour
		}
		if err := (reversalHoldStep{Moves: moves, Seen: seen, Hold: hold}).Run(s); err != nil {
			t.Fatal(err)
		}
		if got := s.Targets["root.a"].Capacity[""]; got != tc.wantA {
			t.Errorf("%s: a %.1f, want %.1f", tc.name, got, tc.wantA)
		}
		if sum := s.Targets["root.a"].Capacity[""] + s.Targets["root.b"].Capacity[""]; sum != 100 {
			t.Errorf("%s: the group sums to %.1f", tc.name, sum)
		}
		noted := len(s.Notes) > 0 && strings.Contains(s.Notes[0], "reversal hold") && strings.Contains(s.Notes[0], "ago")
		if noted != tc.wantNote {
			t.Errorf("%s: notes %q, want a hold note %v", tc.name, s.Notes, tc.wantNote)
		}
	}
}

// TestReversalHoldAwayAgain: a raised to 70, moved back to 60 (toward the
// admin's 50); raising it again within the hour by less than 10 points is
// held.
func TestReversalHoldAwayAgain(t *testing.T) {
	conf := func(a string, b string) schedconf.Conf {
		return schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": a, pre + "root.b.capacity": b}
	}
	seen := map[string]SeenValue{SeenKey("root.a", ""): {Share: 50, AbsShare: 0.5}, SeenKey("root.b", ""): {Share: 50, AbsShare: 0.5}}
	t0 := time.Unix(1_700_000_000, 0)
	moves := capMoves{}
	moves.observe(mustTree(t, conf("50", "50")), t0.Add(-time.Hour))
	moves.observe(mustTree(t, conf("70", "30")), t0.Add(-30*time.Minute))
	live := mustTree(t, conf("60", "40"))
	moves.observe(live, t0)
	s := &decideState{Tree: live, Snap: cluster.Snapshot{Time: t0.Add(10 * time.Minute)}, Targets: map[string]plan.QueueTarget{
		"root.a": {Capacity: map[string]float64{"": 66}}, "root.b": {Capacity: map[string]float64{"": 34}}}}
	if err := (reversalHoldStep{Moves: moves, Seen: seen, Hold: time.Hour}).Run(s); err != nil {
		t.Fatal(err)
	}
	if a, b := s.Targets["root.a"].Capacity[""], s.Targets["root.b"].Capacity[""]; a != 60 || b != 40 {
		t.Errorf("a %.0f b %.0f, want the live 60/40 held", a, b)
	}
}

// TestReversalHoldShrinksTheRest on root.{a,b,c}, the admin's 40/30/30:
// a was raised to 50 (c cut to 20) ten minutes ago. The plan lowers a by 5
// (held: short of the admin's 40) and b by 5, raising c by 10: c's raise
// shrinks to what b's cut pays.
func TestReversalHoldShrinksTheRest(t *testing.T) {
	conf := func(a, b, c string) schedconf.Conf {
		return schedconf.Conf{pre + "root.queues": "a,b,c", pre + "root.a.capacity": a, pre + "root.b.capacity": b, pre + "root.c.capacity": c}
	}
	seen := map[string]SeenValue{SeenKey("root.a", ""): {Share: 40}, SeenKey("root.b", ""): {Share: 30}, SeenKey("root.c", ""): {Share: 30}}
	t0 := time.Unix(1_700_000_000, 0)
	moves := capMoves{}
	moves.observe(mustTree(t, conf("40", "30", "30")), t0.Add(-time.Hour))
	live := mustTree(t, conf("50", "30", "20"))
	moves.observe(live, t0)
	s := &decideState{Tree: live, Snap: cluster.Snapshot{Time: t0.Add(10 * time.Minute)}, Targets: map[string]plan.QueueTarget{
		"root.a": {Capacity: map[string]float64{"": 45}}, "root.b": {Capacity: map[string]float64{"": 25}}, "root.c": {Capacity: map[string]float64{"": 30}}}}
	if err := (reversalHoldStep{Moves: moves, Seen: seen, Hold: time.Hour}).Run(s); err != nil {
		t.Fatal(err)
	}
	got := []float64{s.Targets["root.a"].Capacity[""], s.Targets["root.b"].Capacity[""], s.Targets["root.c"].Capacity[""]}
	if want := []float64{50, 25, 25}; !slices.Equal(got, want) {
		t.Errorf("a/b/c %v, want %v", got, want)
	}
	// c marked as restored: a's cut pays for it and passes.
	s.Targets = map[string]plan.QueueTarget{
		"root.a": {Capacity: map[string]float64{"": 45}}, "root.b": {Capacity: map[string]float64{"": 25}}, "root.c": {Capacity: map[string]float64{"": 30}}}
	s.Restores = map[string]string{"root.c": "guarantee"}
	if err := (reversalHoldStep{Moves: moves, Seen: seen, Hold: time.Hour}).Run(s); err != nil {
		t.Fatal(err)
	}
	got = []float64{s.Targets["root.a"].Capacity[""], s.Targets["root.b"].Capacity[""], s.Targets["root.c"].Capacity[""]}
	if want := []float64{45, 25, 30}; !slices.Equal(got, want) {
		t.Errorf("with c restored: a/b/c %v, want %v", got, want)
	}
}

// TestCapMovesObserve: a value's move keeps its sign and time until the
// next move; removed queues are forgotten.
func TestCapMovesObserve(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	m := capMoves{}
	m.observe(mustTree(t, schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": "50", pre + "root.b.capacity": "50"}), t0)
	if mv := m[capMoveKey("root.a", "", "capacity")]; mv.sign != 0 || mv.value != 50 {
		t.Fatalf("first sight: %+v, want value 50 and no move", mv)
	}
	m.observe(mustTree(t, schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": "40", pre + "root.b.capacity": "60"}), t0.Add(time.Minute))
	m.observe(mustTree(t, schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": "40", pre + "root.b.capacity": "60"}), t0.Add(2*time.Minute))
	if mv := m[capMoveKey("root.a", "", "capacity")]; mv.sign != -1 || !mv.at.Equal(t0.Add(time.Minute)) {
		t.Errorf("a lowered at +1m: %+v", mv)
	}
	if mv := m[capMoveKey("root.b", "", "capacity")]; mv.sign != 1 {
		t.Errorf("b raised: %+v", mv)
	}
	m.observe(mustTree(t, schedconf.Conf{pre + "root.queues": "a", pre + "root.a.capacity": "100"}), t0.Add(3*time.Minute))
	if _, ok := m[capMoveKey("root.b", "", "capacity")]; ok {
		t.Errorf("b removed from the tree but remembered")
	}
}

// TestReversalHoldHome: root.a moved from the default partition (the
// admin's home) to gpu and back ten minutes ago.
func TestReversalHoldHome(t *testing.T) {
	conf := func(home string) schedconf.Conf {
		c := schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": "50", pre + "root.b.capacity": "50",
			pre + "root.accessible-node-labels": "gpu,x", pre + "root.accessible-node-labels.gpu.capacity": "100", pre + "root.accessible-node-labels.x.capacity": "100",
			pre + "root.a.accessible-node-labels": "gpu,x", pre + "root.a.accessible-node-labels.gpu.capacity": "50", pre + "root.a.accessible-node-labels.x.capacity": "50",
			pre + "root.b.accessible-node-labels": "gpu,x", pre + "root.b.accessible-node-labels.gpu.capacity": "50", pre + "root.b.accessible-node-labels.x.capacity": "50"}
		if home != "" {
			c[pre+"root.a.default-node-label-expression"] = home
		}
		return c
	}
	def := ""
	seen := map[string]SeenValue{SeenKey("root.a", ""): {Share: 50, Home: &def}}
	t0 := time.Unix(1_700_000_000, 0)
	for _, tc := range []struct {
		name   string
		urgent bool
		target string
		want   string
	}{
		{"routed again within the hold: held", false, "gpu", ""},
		{"to another partition: passes", false, "x", "x"},
		{"again, for a deadline at risk: passes", true, "gpu", "gpu"},
	} {
		moves := capMoves{}
		moves.observe(mustTree(t, conf("")), t0.Add(-time.Hour))
		moves.observe(mustTree(t, conf("gpu")), t0.Add(-20*time.Minute))
		live := mustTree(t, conf(""))
		moves.observe(live, t0.Add(-10*time.Minute))
		home := tc.target
		s := &decideState{Tree: live, Snap: cluster.Snapshot{Time: t0}, Targets: map[string]plan.QueueTarget{"root.a": {DefaultLabelExpression: &home}}, Urgent: map[string]string{}}
		if tc.urgent {
			s.Urgent["root.a"] = "goal"
		}
		if err := (reversalHoldStep{Moves: moves, Seen: seen, Hold: time.Hour}).Run(s); err != nil {
			t.Fatal(err)
		}
		if got := *s.Targets["root.a"].DefaultLabelExpression; got != tc.want {
			t.Errorf("%s: home %q, want %q", tc.name, got, tc.want)
		}
	}
}
