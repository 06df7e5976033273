package sidecar

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// snapObserver serves a fixed snapshot and the fake RM's live conf.
type snapObserver struct {
	rm   *fakeRM
	snap cluster.Snapshot
}

func (o snapObserver) Observe(context.Context, time.Time) (cluster.Snapshot, error) {
	return o.snap, nil
}
func (o snapObserver) SchedulerConf(ctx context.Context) (schedconf.Conf, error) {
	return o.rm.SchedulerConf(ctx)
}

// shieldThroughApplier runs the shield step for root.a steered into gpu
// holding 80 GB there, and applies the plan: the shield is in YARN and in
// the audit log, and the guard holds it.
func shieldThroughApplier(t *testing.T, admin string) (*fakeRM, *act.Applier, string, *PreemptionGuard, func(int64) cluster.Snapshot) {
	t.Helper()
	const key = "yarn.scheduler.capacity.root.a.disable_preemption"
	live, snap := shieldFixture()
	if admin != "" {
		live[key] = admin
	}
	rm := &fakeRM{conf: live.Clone(), version: 1}
	a, auditPath := newApplier(t, rm)
	g := &PreemptionGuard{Models: mapModel(30), ClassKey: "tag"}
	gpu := "gpu"
	cur := rm.conf.Clone()
	targets, err := decide.RunShieldStep(g, snap(80_000), cur, calibrate.ClassKey("tag").ClassOf,
		&PreemptionStatus{PreemptionState: PreemptionState{On: true, MaxWaitBeforeKill: 15 * time.Second, MaxIgnoredOverCapacity: 0.1}},
		map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 50, "gpu": 50}, DefaultLabelExpression: &gpu}})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := a.Apply(context.Background(), planFor(t, rm, targets)); err != nil || out.Result != act.ResultApplied {
		t.Fatalf("apply: %s %v", out.Result, err)
	}
	if rm.conf[key] != "true" {
		t.Fatalf("shield not written (live %q)", rm.conf[key])
	}
	return rm, a, auditPath, g, snap
}

// TestStopLiftsShields (issue 37): at a clean stop the daemon lifts the
// shields it set where lifting kills nothing, through the applier (one
// audit record), and says which it left and why.
func TestStopLiftsShields(t *testing.T) {
	const key = "yarn.scheduler.capacity.root.a.disable_preemption"
	ctx := context.Background()
	t.Run("kills nothing: lifted, the admin's unset restored", func(t *testing.T) {
		rm, a, auditPath, g, snap := shieldThroughApplier(t, "")
		records, err := RecoverShields(ctx, auditPath, rm)
		if err != nil {
			t.Fatal(err)
		}
		lift, err := LiftShields(ctx, snapObserver{rm, snap(50_000)}, a, g.HeldShields(records), time.Unix(0, 0), LiftOptions{MaxIgnoredOverCapacity: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := rm.conf[key]; ok || len(lift.Lifted) != 1 || lift.Outcome.Result != act.ResultApplied {
			t.Fatalf("want the shield removed: live %q, lifted %v, result %s", rm.conf[key], lift.Lifted, lift.Outcome.Result)
		}
		last := readAudit(t, auditPath)
		if e := last[len(last)-1]; e.Result != act.ResultApplied || e.Before[key] != "true" || e.After[key] != "" {
			t.Fatalf("audit: want the lift recorded true → \"\", got %s %q → %q", e.Result, e.Before[key], e.After[key])
		}
		if again, _ := RecoverShields(ctx, auditPath, rm); len(again) != 0 {
			t.Fatalf("after the lift a restart still owns %v", again)
		}
	})
	t.Run("lifting would kill: left, and why", func(t *testing.T) {
		rm, a, auditPath, g, snap := shieldThroughApplier(t, "")
		records, _ := RecoverShields(ctx, auditPath, rm)
		lift, err := LiftShields(ctx, snapObserver{rm, snap(80_000)}, a, g.HeldShields(records), time.Unix(0, 0), LiftOptions{MaxIgnoredOverCapacity: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		if rm.conf[key] != "true" || len(lift.Lifted) != 0 || !strings.Contains(lift.Left["root.a"], "kill") {
			t.Fatalf("80 GB on gpu (> 55 GB): want the shield left with a reason, live %q, left %v", rm.conf[key], lift.Left)
		}
	})
}

// TestShieldsLiftAfterCrash (issue 37): the daemon died with a shield in
// YARN over the admin's "false"; a new process knows nothing in memory,
// reads the audit log, and restores the admin's value — not an unset,
// which would let the queue inherit its parent's.
func TestShieldsLiftAfterCrash(t *testing.T) {
	const key = "yarn.scheduler.capacity.root.a.disable_preemption"
	ctx := context.Background()
	rm, a, auditPath, _, snap := shieldThroughApplier(t, "false")
	records, err := RecoverShields(ctx, auditPath, rm)
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != 1 || records[0].AdminValue != "false" || records[0].Since.IsZero() {
		t.Fatalf("audit log: want root.a over the admin's false, with its time, got %+v", records)
	}
	dry, err := PlanShieldLift(snap(0), rm.conf.Clone(), rm.version, records, LiftOptions{MaxIgnoredOverCapacity: 0.1})
	if err != nil || dry.Plan == nil || len(dry.Plan.Changes) != 1 || dry.Plan.Changes[0].To != "false" {
		t.Fatalf("plan: want one change back to false, got %+v %v", dry.Plan, err)
	}
	if rm.conf[key] != "true" {
		t.Fatalf("planning wrote to YARN")
	}
	lift, err := LiftShields(ctx, snapObserver{rm, snap(0)}, a, records, time.Unix(0, 0), LiftOptions{MaxIgnoredOverCapacity: 0.1})
	if err != nil || lift.Outcome.Result != act.ResultApplied {
		t.Fatalf("lift: %s %v", lift.Outcome.Result, err)
	}
	if rm.conf[key] != "false" {
		t.Fatalf("want the admin's false restored, live %q", rm.conf[key])
	}
}

// TestLiftUsesMaxIgnoredOverCapacity: what the RM leaves alone above a
// guarantee is yarn-site's max_ignored_over_capacity (else Hadoop's 0.1):
// root.a holding 70 GB of gpu against 50 GB is exposed at 0.1 (55 GB) and
// lifted at 0.5 (75 GB).
func TestLiftUsesMaxIgnoredOverCapacity(t *testing.T) {
	const maxIgnored = "yarn.resourcemanager.monitor.capacity.preemption.max_ignored_over_capacity"
	for _, tc := range []struct {
		site map[string]string
		want float64
	}{{nil, 0.1}, {map[string]string{maxIgnored: " 0.5 "}, 0.5}, {map[string]string{maxIgnored: "x"}, 0.1}, {map[string]string{maxIgnored: "-1"}, 0.1}} {
		if got := decide.MaxIgnoredOverCapacity(tc.site); got != tc.want {
			t.Errorf("yarn-site %v: got %g, want %g", tc.site, got, tc.want)
		}
	}
	const key = "yarn.scheduler.capacity.root.a.disable_preemption"
	live, snap := shieldFixture()
	live[key] = "true"
	shields := []Shield{{Queue: "root.a"}}
	for _, tc := range []struct {
		ignored float64
		lifted  int
	}{{0.1, 0}, {0.5, 1}} {
		got, err := PlanShieldLift(snap(70_000), live, 1, shields, LiftOptions{MaxIgnoredOverCapacity: tc.ignored})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Lifted) != tc.lifted {
			t.Errorf("max_ignored_over_capacity %g: lifted %d, want %d (left: %v)", tc.ignored, len(got.Lifted), tc.lifted, got.Left)
		}
	}
}
