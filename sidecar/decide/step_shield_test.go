package decide

import (
	"math"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// TestShieldWant: when the shield goes on, comes off, or is left alone,
// and when a new route goes without one (uncovered).
func TestShieldWant(t *testing.T) {
	on, off := true, false
	// b is a queue steered into gpu where b's owners hold guarantees and b
	// will borrow, with 30 s maps under a 60 s bound.
	b := shieldCase{SteeredTo: "gpu", Owners: true, Borrows: true, LongestTask: 30, MaxTask: 60}
	with := func(f func(*shieldCase)) shieldCase { c := b; f(&c); return c }
	for _, tc := range []struct {
		name string
		c    shieldCase
		want *bool
		hold bool
	}{
		{"steered into gpu, owners there, borrows, 30 s maps ≤ 60 s: shield", b, &on, false},
		{"the route written this cycle: the shield in the same mutation", with(func(c *shieldCase) { c.NewRoute = true }), &on, false},
		{"already shielded: no write", with(func(c *shieldCase) { c.LiveDisabled, c.Ours = true, true }), nil, false},
		{"maps of 90 s > 60 s: the owners would wait too long; no shield", with(func(c *shieldCase) { c.LongestTask = 90 }), nil, false},
		{"maps of 90 s and a new route: no shield can cover it, said so", with(func(c *shieldCase) { c.LongestTask, c.NewRoute = 90, true }), nil, true},
		{"no model yet (LongestTask 0): shield with the route", with(func(c *shieldCase) { c.LongestTask, c.NewRoute = 0, true }), &on, false},
		{"nobody else has a guarantee there: nothing to preempt for", with(func(c *shieldCase) { c.Owners = false }), nil, false},
		{"its demand fits in its guarantee there: never preempted there, no shield", with(func(c *shieldCase) { c.Borrows = false }), nil, false},
		{"below its guarantee there while others borrow (it reclaims): never shielded", with(func(c *shieldCase) { c.Reclaiming = true }), nil, false},
		{"reclaiming with a new route: the route goes (it reclaims its own guarantee)", with(func(c *shieldCase) { c.Reclaiming, c.NewRoute = true, true }), nil, false},
		{"reclaiming, ours, not exposed: lifted", with(func(c *shieldCase) { c.Reclaiming, c.LiveDisabled, c.Ours = true, true, true }), &off, false},
		{"not steered (default partition): no shield", with(func(c *shieldCase) { c.SteeredTo = "" }), nil, false},
		{"no longer steered, ours, not exposed: lifted", with(func(c *shieldCase) { c.SteeredTo, c.LiveDisabled, c.Ours = "", true, true }), &off, false},
		{"no longer steered but lifting would kill: kept", with(func(c *shieldCase) { c.SteeredTo, c.LiveDisabled, c.Ours, c.Exposed = "", true, true, true }), nil, false},
		{"maps grew too long while shielded, not exposed: lifted", with(func(c *shieldCase) { c.LongestTask, c.LiveDisabled, c.Ours = 90, true, true }), &off, false},
		{"the admin's disable_preemption is never lifted", shieldCase{MaxTask: 60, LiveDisabled: true}, nil, false},
		{"the admin's disable_preemption covers a new route", with(func(c *shieldCase) { c.LongestTask, c.NewRoute, c.LiveDisabled = 90, true, true }), nil, false},
		{"switched off: no shield though eligible, and the route goes", with(func(c *shieldCase) { c.Off, c.NewRoute = true, true }), nil, false},
		{"switched off, ours, still steered, not exposed: lifted", with(func(c *shieldCase) { c.Off, c.LiveDisabled, c.Ours = true, true, true }), &off, false},
		{"switched off, ours, exposed: kept (lifting would kill)", with(func(c *shieldCase) { c.Off, c.LiveDisabled, c.Ours, c.Exposed = true, true, true, true }), nil, false},
		{"switched off, the admin's: never lifted", shieldCase{LiveDisabled: true, Off: true}, nil, false},
	} {
		got := shieldWant(tc.c)
		if (got.Want == nil) != (tc.want == nil) || got.Want != nil && *got.Want != *tc.want || got.Uncovered != tc.hold {
			t.Errorf("%s: got %v uncovered=%v, want %v uncovered=%v", tc.name, fmtBoolp(got.Want), got.Uncovered, fmtBoolp(tc.want), tc.hold)
		}
	}
}

func fmtBoolp(b *bool) string {
	if b == nil {
		return "nil"
	}
	if *b {
		return "true"
	}
	return "false"
}

// The step on a gpu partition shared by a and b: a's jobs are steered
// there and run 30 s maps; the shield goes on in the safe default only,
// BuildPlan writes it, and it comes off once a is back home and holds
// nothing there.
func TestPreemptionShieldStep(t *testing.T) {
	live, snap := shieldFixture()
	gpu, home := "gpu", ""
	run := func(g *PreemptionGuard, live schedconf.Conf, sn cluster.Snapshot, to *string) (*plan.QueueTarget, *plan.Plan) {
		t.Helper()
		s := &decideState{Snap: sn, Live: live, Tree: mustTree(t, live), ClassOf: calibrate.ClassKey("tag").ClassOf,
			Preemption: &PreemptionStatus{PreemptionState: PreemptionState{On: true, MaxWaitBeforeKill: 15 * time.Second, MaxIgnoredOverCapacity: 0.1}},
			Targets:    map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 50, "gpu": 50}, DefaultLabelExpression: to}}}
		if err := (preemptionShieldStep{Guard: g}).Run(s); err != nil {
			t.Fatal(err)
		}
		tg := s.Targets["root.a"]
		p, err := plan.BuildPlan(time.Time{}, live, 0, s.Targets, plan.SafetyRules{})
		if err != nil {
			t.Fatal(err)
		}
		return &tg, p
	}
	g := &PreemptionGuard{Models: mapModel(30), ClassKey: "tag"}
	tg, p := run(g, live, snap(80_000), &gpu)
	if tg.DisablePreemption == nil || !*tg.DisablePreemption || p.Desired["yarn.scheduler.capacity.root.a.disable_preemption"] != "true" {
		t.Fatalf("steered with 30 s maps: want the shield written, got %v / %q", fmtBoolp(tg.DisablePreemption), p.Desired["yarn.scheduler.capacity.root.a.disable_preemption"])
	}
	shielded := schedconf.Conf{}
	for k, v := range live {
		shielded[k] = v
	}
	shielded["yarn.scheduler.capacity.root.a.disable_preemption"] = "true"
	// Back home but holding 80 GB of gpu (> 50 GB × 1.1): kept.
	if tg, _ := run(g, shielded, snap(80_000), &home); tg.DisablePreemption != nil {
		t.Fatalf("exposed: want the shield kept, got %v", fmtBoolp(tg.DisablePreemption))
	}
	// Holding 50 GB (≤ 55 GB): lifted, the property removed.
	tg, p = run(g, shielded, snap(50_000), &home)
	if tg.DisablePreemption == nil || *tg.DisablePreemption {
		t.Fatalf("not exposed: want the shield lifted, got %v", fmtBoolp(tg.DisablePreemption))
	}
	if _, ok := p.Desired["yarn.scheduler.capacity.root.a.disable_preemption"]; ok {
		t.Fatalf("lifted shield still in the desired conf")
	}
	// Preemption on purpose: no shield.
	gp := &PreemptionGuard{Models: mapModel(30), ClassKey: "tag", Config: PreemptionConfig{OnPurpose: true}}
	if tg, _ := run(gp, live, snap(80_000), &gpu); tg.DisablePreemption != nil {
		t.Fatalf("on purpose: want no shield")
	}
	// An admin's shield (not ours) is never lifted.
	g2 := &PreemptionGuard{Models: mapModel(30), ClassKey: "tag"}
	if tg, _ := run(g2, shielded, snap(0), &home); tg.DisablePreemption != nil {
		t.Fatalf("admin's disable_preemption lifted")
	}
}

// TestShieldNeverOnTheReclaimingQueue (issue 37): a and b are both steered
// into gpu (50 GB guarantee each). a holds 80 GB there; b holds 10 GB and
// asks for 100 GB more: b is below its guarantee, asking, while a borrows —
// the RM preempts a for b. The shield goes on a (whose containers sit on
// b's guarantee), never on b; b's own shield, had the sidecar set one, is
// lifted (b holds less than its guarantee: lifting kills nothing). And a
// queue whose whole demand fits in its guarantee there is not shielded.
func TestShieldNeverOnTheReclaimingQueue(t *testing.T) {
	live, _ := shieldFixture()
	live["yarn.scheduler.capacity.root.b.disable_preemption"] = "true" // set by this sidecar earlier
	gpu := "gpu"
	snap := func(bPending int64) cluster.Snapshot {
		return cluster.Snapshot{
			Partitions: []cluster.Partition{{Name: "", Total: cluster.Resource{MemoryMB: 100_000}}, {Name: "gpu", Total: cluster.Resource{MemoryMB: 100_000}}},
			Queues: []cluster.Queue{
				{Path: "root.a", Name: "a", Leaf: true, ByPartition: map[string]cluster.QueueCapacity{"gpu": {Used: cluster.Resource{MemoryMB: 80_000}}}},
				{Path: "root.b", Name: "b", Leaf: true, ByPartition: map[string]cluster.QueueCapacity{"gpu": {Used: cluster.Resource{MemoryMB: 10_000}, Pending: cluster.Resource{MemoryMB: bPending}}}}},
			Apps: []cluster.App{{ID: "app_a", Queue: "root.a", State: cluster.AppRunning, Tags: []string{"jobclass=x"}},
				{ID: "app_b", Queue: "root.b", State: cluster.AppRunning, Tags: []string{"jobclass=x"}}}}
	}
	for _, tc := range []struct {
		name     string
		bPending int64
	}{{"b asks beyond its guarantee", 100_000}, {"b's demand fits in its guarantee", 20_000}} {
		t.Run(tc.name, func(t *testing.T) {
			g := &PreemptionGuard{Models: mapModel(30), ClassKey: "tag"}
			g.AdoptShields([]Shield{{Queue: "root.b"}})
			s := &decideState{Snap: snap(tc.bPending), Live: live, Tree: mustTree(t, live), ClassOf: calibrate.ClassKey("tag").ClassOf,
				Preemption: &PreemptionStatus{PreemptionState: PreemptionState{On: true, MaxWaitBeforeKill: 15 * time.Second, MaxIgnoredOverCapacity: 0.1}},
				Targets:    map[string]plan.QueueTarget{"root.a": {DefaultLabelExpression: &gpu}, "root.b": {DefaultLabelExpression: &gpu}}}
			if err := (preemptionShieldStep{Guard: g}).Run(s); err != nil {
				t.Fatal(err)
			}
			if a := s.Targets["root.a"].DisablePreemption; a == nil || !*a {
				t.Errorf("a borrows 30 GB of b's guarantee: want the shield on a, got %s", fmtBoolp(a))
			}
			if b := s.Targets["root.b"].DisablePreemption; b == nil || *b {
				t.Errorf("b is below its guarantee in gpu: want its shield lifted, never set, got %s", fmtBoolp(b))
			}
		})
	}
}

// TestMapTimeThere: crypto's maps take 60 s on the cluster's mix (2 CPU
// slots at CR 1, 2 GPU slots at CR 3: 60 = W × (½ + ½ ⋅ ⅓), so W = 90);
// on the GPU partition they take 90 / 3 = 30 s, on the CPU one 90 s.
// Unknown rates leave the model's mean.
func TestMapTimeThere(t *testing.T) {
	rates := progress.RateMap{"crypto": {"cpu": 1, "gpu": 3}}
	all := map[string]int64{"cpu": 2, "gpu": 2}
	for _, tc := range []struct {
		name  string
		rates progress.Rates
		there map[string]int64
		want  float64
	}{
		{"gpu partition", rates, map[string]int64{"gpu": 2}, 30},
		{"cpu partition", rates, map[string]int64{"cpu": 2}, 90},
		{"no rate for a type: the mean", progress.RateMap{"crypto": {"cpu": 1}}, map[string]int64{"gpu": 2}, 60},
		{"no rates: the mean", nil, map[string]int64{"gpu": 2}, 60},
	} {
		if got := mapTimeThere(60, tc.rates, "crypto", all, tc.there); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: got %g, want %g", tc.name, got, tc.want)
		}
	}
}
