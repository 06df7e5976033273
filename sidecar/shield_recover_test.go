package sidecar

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// TestShieldsFromAudit: which shields the audit log says are ours.
func TestShieldsFromAudit(t *testing.T) {
	const ka = "yarn.scheduler.capacity.root.a.disable_preemption"
	const kb = "yarn.scheduler.capacity.root.b.disable_preemption"
	const kc = "yarn.scheduler.capacity.root.a.capacity"
	set := func(k string, r act.Result) act.AuditEntry {
		return act.AuditEntry{Mode: act.ModeApply, Before: map[string]string{k: ""}, After: map[string]string{k: "true"}, Result: r}
	}
	lift := act.AuditEntry{Mode: act.ModeApply, Before: map[string]string{ka: "true"}, After: map[string]string{ka: ""}, Result: act.ResultApplied}
	both := schedconf.Conf{ka: "true", kb: "true"}
	for _, tc := range []struct {
		name    string
		entries []act.AuditEntry
		live    schedconf.Conf
		want    []string
	}{
		{"applied, still true: ours", []act.AuditEntry{set(ka, act.ResultApplied)}, both, []string{"root.a"}},
		{"applied with a capacity change in the same PUT", []act.AuditEntry{{Mode: act.ModeApply, Before: map[string]string{ka: "false", kc: "50"}, After: map[string]string{ka: "true", kc: "60"}, Result: act.ResultApplied}}, both, []string{"root.a"}},
		{"rolled back: never landed", []act.AuditEntry{set(ka, act.ResultRolledBack)}, both, nil},
		{"failed: not counted", []act.AuditEntry{set(ka, act.ResultFailed)}, both, nil},
		{"dry-run: never written", []act.AuditEntry{{Mode: act.ModeDryRun, Before: map[string]string{ka: ""}, After: map[string]string{ka: "true"}, Result: act.ResultDryRun}}, both, nil},
		{"interrupted apply recovered at restart: ours", []act.AuditEntry{set(kb, act.ResultRecovered)}, both, []string{"root.b"}},
		{"interrupted apply not applied: nothing recorded as changed", []act.AuditEntry{{Mode: act.ModeApply, Result: act.ResultNotApplied}}, both, nil},
		{"set then lifted: not ours", []act.AuditEntry{set(ka, act.ResultApplied), lift}, both, nil},
		{"set, lifted, set again: ours", []act.AuditEntry{set(ka, act.ResultApplied), lift, set(ka, act.ResultApplied)}, both, []string{"root.a"}},
		{"admin changed it since (live false)", []act.AuditEntry{set(ka, act.ResultApplied)}, schedconf.Conf{ka: "false"}, nil},
		{"admin removed it since (live unset)", []act.AuditEntry{set(ka, act.ResultApplied)}, schedconf.Conf{}, nil},
		{"admin changed it (recorded at restart) then set it true again: the admin's",
			[]act.AuditEntry{set(ka, act.ResultApplied), {Mode: act.ModeApply, Before: map[string]string{ka: "true"}, After: map[string]string{ka: "false"}, Result: act.ResultChangedOutside}}, both, nil},
		{"changed-outside record that still reads true keeps it ours",
			[]act.AuditEntry{set(ka, act.ResultApplied), {Mode: act.ModeApply, Before: map[string]string{ka: "true"}, After: map[string]string{ka: "true"}, Result: act.ResultChangedOutside}}, both, []string{"root.a"}},
		{"admin set it before us (true → true): not ours", []act.AuditEntry{{Mode: act.ModeApply, Before: map[string]string{ka: "true"}, After: map[string]string{ka: "true"}, Result: act.ResultApplied}}, both, nil},
		{"admin's TRUE before ours (TRUE → true): not ours", []act.AuditEntry{{Mode: act.ModeApply, Before: map[string]string{ka: "TRUE"}, After: map[string]string{ka: "true"}, Result: act.ResultApplied}}, both, nil},
		{"admin's true, no record of ours", []act.AuditEntry{{Mode: act.ModeApply, Before: map[string]string{kc: "50"}, After: map[string]string{kc: "60"}, Result: act.ResultApplied}}, both, nil},
		{"two queues, sorted", []act.AuditEntry{set(kb, act.ResultApplied), set(ka, act.ResultApplied)}, both, []string{"root.a", "root.b"}},
	} {
		if got := ShieldsFromAudit(tc.entries, tc.live); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A sidecar sets a shield through the applier (audit log written), is
// restarted — a new guard, nothing in memory, the same audit log — and
// lifts the shield once a is back home and holds no more than the RM
// leaves alone. A restarted sidecar without recovery would leave it.
// With shield_steered_queues off, the recovered shield is lifted even
// while a is still steered, but only once lifting kills nothing.
func TestShieldSurvivesRestart(t *testing.T) {
	const key = "yarn.scheduler.capacity.root.a.disable_preemption"
	live, snap := shieldFixture()
	gpu, home := "gpu", ""
	// cycle runs the shield step on the RM's live conf and applies the plan.
	cycle := func(t *testing.T, g *PreemptionGuard, rm *fakeRM, a *act.Applier, sn cluster.Snapshot, to *string) *PreemptionStatus {
		t.Helper()
		cur := rm.conf.Clone()
		ps := &PreemptionStatus{PreemptionState: PreemptionState{On: true, MaxWaitBeforeKill: 15 * time.Second, MaxIgnoredOverCapacity: 0.1}}
		targets, err := decide.RunShieldStep(g, sn, cur, calibrate.ClassKey("tag").ClassOf, ps,
			map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 50, "gpu": 50}, DefaultLabelExpression: to}})
		if err != nil {
			t.Fatal(err)
		}
		p := planFor(t, rm, targets)
		if !p.Empty() {
			if out, err := a.Apply(context.Background(), p); err != nil || out.Result != act.ResultApplied {
				t.Fatalf("apply: %s %v", out.Result, err)
			}
		}
		return ps
	}
	restart := func(t *testing.T, rm *fakeRM, auditPath string, cfg PreemptionConfig) *PreemptionGuard {
		t.Helper()
		g := &PreemptionGuard{Models: mapModel(30), ClassKey: "tag", Config: cfg}
		paths, err := RecoverShields(context.Background(), auditPath, rm)
		if err != nil {
			t.Fatal(err)
		}
		g.AdoptShields(paths)
		return g
	}
	setUp := func(t *testing.T) (*fakeRM, *act.Applier, string) {
		rm := &fakeRM{conf: live.Clone(), version: 1}
		a, auditPath := newApplier(t, rm)
		first := &PreemptionGuard{Models: mapModel(30), ClassKey: "tag"}
		cycle(t, first, rm, a, snap(80_000), &gpu)
		if rm.conf[key] != "true" {
			t.Fatalf("first run: shield not written (live %q)", rm.conf[key])
		}
		if ps := cycle(t, first, rm, a, snap(80_000), &gpu); !reflect.DeepEqual(ps.Shielded, []string{"root.a"}) {
			t.Fatalf("status: shielded %v, want [root.a]", ps.Shielded)
		}
		return rm, a, auditPath
	}

	t.Run("without recovery the shield is left behind", func(t *testing.T) {
		rm, a, _ := setUp(t)
		g := &PreemptionGuard{Models: mapModel(30), ClassKey: "tag"}
		cycle(t, g, rm, a, snap(0), &home)
		if rm.conf[key] != "true" {
			t.Fatalf("a guard that knows nothing lifted a shield it cannot tell from the admin's")
		}
	})
	t.Run("recovered: kept while exposed, lifted when it kills nothing", func(t *testing.T) {
		rm, a, auditPath := setUp(t)
		g := restart(t, rm, auditPath, PreemptionConfig{})
		if ps := cycle(t, g, rm, a, snap(80_000), &home); rm.conf[key] != "true" || !reflect.DeepEqual(ps.Shielded, []string{"root.a"}) {
			t.Fatalf("back home but 80 GB on gpu (> 55 GB): want kept and listed, live %q, shielded %v", rm.conf[key], ps.Shielded)
		}
		cycle(t, g, rm, a, snap(50_000), &home)
		if _, ok := rm.conf[key]; ok {
			t.Fatalf("back home, 50 GB on gpu: want the recovered shield lifted, live %q", rm.conf[key])
		}
		// The lift is in the audit log: a further restart owns nothing.
		if g2 := restart(t, rm, auditPath, PreemptionConfig{}); len(g2.Shields()) != 0 {
			t.Fatalf("after the lift a restart recovers %v", g2.Shields())
		}
	})
	t.Run("switched off: recovered shield lifted though still steered", func(t *testing.T) {
		rm, a, auditPath := setUp(t)
		off := false
		g := restart(t, rm, auditPath, PreemptionConfig{ShieldSteeredQueues: &off})
		cycle(t, g, rm, a, snap(80_000), &gpu)
		if rm.conf[key] != "true" {
			t.Fatalf("off but exposed: lifting would kill; want kept")
		}
		cycle(t, g, rm, a, snap(50_000), &gpu)
		if _, ok := rm.conf[key]; ok {
			t.Fatalf("off and not exposed: want lifted, live %q", rm.conf[key])
		}
		cycle(t, g, rm, a, snap(0), &gpu)
		if _, ok := rm.conf[key]; ok {
			t.Fatalf("off: a shield was set again")
		}
	})
	t.Run("admin changed it after our restart: not ours", func(t *testing.T) {
		rm, a, auditPath := setUp(t)
		rm.conf[key] = "false"
		g := restart(t, rm, auditPath, PreemptionConfig{})
		if len(g.Shields()) != 0 {
			t.Fatalf("admin's false: want nothing recovered, got %v", g.Shields())
		}
		_ = a
	})
}
