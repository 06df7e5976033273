package sidecar

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Lifting the shields (issue 37). A preemption shield is this sidecar's
// disable_preemption=true on a queue; it covers every partition of the
// queue (Hadoop reads the flag once per queue), so it must not outlive
// the sidecar: at a clean stop the daemon lifts the shields it set, and
// after a crash `yarn-sidecar shields lift` does, from the audit log. A
// shield comes off only where lifting kills nothing (exposedAfterLift:
// the queue holds no more than its guarantee × 1.1 in a label partition,
// nor over it in the default partition while another queue waits there);
// the others are left, and said so, with why.

// ShieldLift is what lifting the shields would do or did, queue by queue.
type ShieldLift struct {
	// Lifted are the shields whose admin value is restored (Queue,
	// AdminValue: "" removes the property, the queue inherits again).
	Lifted []Shield `json:"lifted"`
	// Left are the shields kept, with why (queue → reason).
	Left map[string]string `json:"left,omitempty"`
	// Plan is the mutation restoring the admin's values (nil: nothing to
	// lift).
	Plan *plan.Plan `json:"plan,omitempty"`
	// Outcome is what the applier did with it (zero when not applied).
	Outcome act.Outcome `json:"outcome"`
}

// LiftOptions say how shields are lifted.
type LiftOptions struct {
	// Force lifts the exposed ones too (an admin who accepts the kills).
	Force bool
	// MaxIgnoredOverCapacity is the RM's max_ignored_over_capacity
	// (MaxIgnoredOverCapacity of yarn-site): what it leaves alone above a
	// queue's guarantee.
	MaxIgnoredOverCapacity float64
}

// PlanShieldLift decides which of the shields come off now and builds the
// mutation that restores their admin values.
func PlanShieldLift(snap cluster.Snapshot, live schedconf.Conf, version int64, shields []Shield, o LiftOptions) (ShieldLift, error) {
	out := ShieldLift{Left: map[string]string{}}
	tree, err := schedconf.ParseTree(live)
	if err != nil {
		return out, fmt.Errorf("plan shield lift: parse live scheduler-conf: %w", err)
	}
	queueOf := snap.QueueIndex()
	leaves := tree.Leaves()
	desired := live.Clone()
	pl := &plan.Plan{Time: snap.Time, ConfVersion: version, Base: live}
	for _, sh := range shields {
		if tree.ByPath[sh.Queue] == nil {
			out.Left[sh.Queue] = "the queue is no longer in the live configuration"
			continue
		}
		if !decide.LiveShielded(live, sh.Queue) {
			out.Left[sh.Queue] = "YARN no longer holds disable_preemption=true there (someone changed it)"
			continue
		}
		if decide.ExposedAfterLift(snap, queueOf, tree, leaves, sh.Queue, o.MaxIgnoredOverCapacity) && !o.Force {
			out.Left[sh.Queue] = "it holds more than the RM would leave it (guarantee × (1 + max_ignored_over_capacity) in a label partition, or over its guarantee where another queue waits): lifting now would let the RM kill its containers; lift it once they end, or with --force"
			continue
		}
		key := schedconf.Key(sh.Queue, plan.DisablePreemptionProp)
		why := "preemption shield lifted: the admin's value restored"
		if sh.AdminValue == "" {
			delete(desired, key)
			why += " (unset: the queue inherits again)"
		} else {
			desired[key] = sh.AdminValue
		}
		pl.Changes = append(pl.Changes, plan.Change{Queue: sh.Queue, Property: plan.DisablePreemptionProp, From: live[key], To: sh.AdminValue, Reason: why})
		out.Lifted = append(out.Lifted, sh)
	}
	if len(pl.Changes) == 0 {
		return out, nil
	}
	pl.Desired = desired
	pl.Mutation = schedconf.Diff(live, desired)
	pl.Reasons = []string{"preemption shields lifted: " + shieldNames(out.Lifted)}
	out.Plan = pl
	return out, nil
}

func shieldNames(ss []Shield) string {
	names := make([]string, 0, len(ss))
	for _, s := range ss {
		names = append(names, s.Queue)
	}
	return strings.Join(names, ", ")
}

// LiftShields reads the cluster, plans the lift (PlanShieldLift) and
// writes it through the applier, the one writer (its mode decides whether
// this is a dry run; its audit log records it). Shields are what the
// caller knows it set: the guard's (a clean stop) or the audit log's (an
// admin after a crash).
func LiftShields(ctx context.Context, obs act.Observer, app *act.Applier, shields []Shield, now time.Time, o LiftOptions) (ShieldLift, error) {
	if len(shields) == 0 {
		return ShieldLift{}, nil
	}
	snap, err := obs.Observe(ctx, now)
	if err != nil {
		return ShieldLift{}, fmt.Errorf("lift preemption shields: observe: %w", err)
	}
	live, err := obs.SchedulerConf(ctx)
	if err != nil {
		return ShieldLift{}, fmt.Errorf("lift preemption shields: read live scheduler-conf: %w", err)
	}
	version, err := app.API.ConfVersion(ctx)
	if err != nil {
		return ShieldLift{}, fmt.Errorf("lift preemption shields: read scheduler-conf version: %w", err)
	}
	lift, err := PlanShieldLift(snap, live, version, shields, o)
	if err != nil || lift.Plan == nil {
		return lift, err
	}
	lift.Outcome, err = app.Apply(ctx, lift.Plan)
	if err != nil {
		return lift, fmt.Errorf("lift preemption shields: %w", err)
	}
	return lift, nil
}
