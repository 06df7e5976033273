package sidecar

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Shield recovery (issue 16). Which queues' disable_preemption this
// sidecar set (preemptionShieldStep) is kept in memory; a restart would
// forget it and leave the shields in YARN for good, as if the admin had
// set them. The audit log records every write, so at start the guard
// re-learns its shields from it.

// shieldPath is the queue path of a disable_preemption key ("" if the key
// is another property).
func shieldPath(key string) string {
	if !strings.HasPrefix(key, schedconf.Prefix) || !strings.HasSuffix(key, "."+disablePreemptionProp) {
		return ""
	}
	return strings.TrimSuffix(strings.TrimPrefix(key, schedconf.Prefix), "."+disablePreemptionProp)
}

// ShieldsFromAudit says which queues' disable_preemption=true this sidecar
// set and YARN still holds. A queue is ours when the last record that
// landed in YARN touching its key — applied, or recovered at a restart
// (reconcile.go) — set it to "true" from a value that was not "true", and
// the live conf still has "true". Rolled-back, not-applied, failed and
// dry-run records changed nothing in YARN and are skipped. A
// changed-outside record (another writer) whose live value is not "true"
// disowns the key: whatever "true" YARN holds later was not written by
// us. An admin's "true" before ours is never written over (BuildPlan only
// writes a value that differs), so its record would read "true" → "true":
// not ours.
func ShieldsFromAudit(entries []AuditEntry, live schedconf.Conf) []string {
	ours := map[string]bool{}
	for _, e := range entries {
		if e.Mode != ModeApply {
			continue
		}
		switch e.Result {
		case ResultApplied, ResultRecovered:
			for k, after := range e.After {
				if p := shieldPath(k); p != "" {
					ours[p] = confTrue(after) && !confTrue(e.Before[k])
				}
			}
		case ResultChangedOutside:
			for k, after := range e.After {
				if p := shieldPath(k); p != "" && !confTrue(after) {
					ours[p] = false
				}
			}
		}
	}
	var out []string
	for p, mine := range ours {
		if mine && liveShielded(live, p) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// RecoverShields reads the audit log and the live conf and returns the
// queues whose shield this sidecar set (ShieldsFromAudit). Run it after
// ReconcileAudit, so an interrupted apply is already recorded. No log
// yet: nothing is ours.
func RecoverShields(ctx context.Context, auditPath string, rm ConfReader) ([]string, error) {
	// Lines that are not records are skipped (the start's other readers of
	// the log warn about them).
	entries, err := ReadAuditFile(auditPath, nil)
	if err != nil {
		return nil, fmt.Errorf("recover preemption shields: %w", err)
	}
	if len(entries) == 0 {
		return nil, nil
	}
	live, err := rm.SchedulerConf(ctx)
	if err != nil {
		return nil, fmt.Errorf("recover preemption shields: read live scheduler-conf: %w", err)
	}
	return ShieldsFromAudit(entries, live), nil
}

// AdoptShields tells the guard which queues' shields it set before a
// restart (RecoverShields); call it before the first cycle.
func (g *PreemptionGuard) AdoptShields(paths []string) {
	if g.shielded == nil {
		g.shielded = map[string]bool{}
	}
	for _, p := range paths {
		g.shielded[p] = true
	}
}
