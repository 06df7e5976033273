package sidecar

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
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
	if !strings.HasPrefix(key, schedconf.Prefix) || !strings.HasSuffix(key, "."+plan.DisablePreemptionProp) {
		return ""
	}
	return strings.TrimSuffix(strings.TrimPrefix(key, schedconf.Prefix), "."+plan.DisablePreemptionProp)
}

// Shield is one shield this sidecar set (sidecar/decide: the guard keeps
// them).
type Shield = decide.Shield

// ShieldsFromAudit says which queues' disable_preemption=true this sidecar
// set and YARN still holds (the queue paths of ShieldRecords).
func ShieldsFromAudit(entries []act.AuditEntry, live schedconf.Conf) []string {
	var out []string
	for _, sh := range ShieldRecords(entries, live) {
		out = append(out, sh.Queue)
	}
	return out
}

// ShieldRecords says which queues' disable_preemption=true this sidecar
// set and YARN still holds, with when and over what. A queue is ours when
// the last record that landed in YARN touching its key — applied, or
// recovered at a restart (act/reconcile.go) — set it to "true" from a value
// that was not "true", and the live conf still has "true". Rolled-back,
// not-applied, failed and dry-run records changed nothing in YARN and are
// skipped. A changed-outside record (another writer) whose live value is
// not "true" disowns the key: whatever "true" YARN holds later was not
// written by us. An admin's "true" before ours is never written over
// (BuildPlan only writes a value that differs), so its record would read
// "true" → "true": not ours.
func ShieldRecords(entries []act.AuditEntry, live schedconf.Conf) []Shield {
	ours := map[string]*Shield{}
	for _, e := range entries {
		if e.Mode != act.ModeApply {
			continue
		}
		switch e.Result {
		case act.ResultApplied, act.ResultRecovered:
			for k, after := range e.After {
				if p := shieldPath(k); p != "" {
					if decide.ConfTrue(after) && !decide.ConfTrue(e.Before[k]) {
						ours[p] = &Shield{Queue: p, Since: e.Time, AdminValue: e.Before[k]}
					} else {
						delete(ours, p)
					}
				}
			}
		case act.ResultChangedOutside:
			for k, after := range e.After {
				if p := shieldPath(k); p != "" && !decide.ConfTrue(after) {
					delete(ours, p)
				}
			}
		}
	}
	var out []Shield
	for p, sh := range ours {
		if decide.LiveShielded(live, p) {
			out = append(out, *sh)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Queue < out[j].Queue })
	return out
}

// RecoverShields reads the audit log and the live conf and returns the
// shields this sidecar set (ShieldRecords). Run it after ReconcileAudit,
// so an interrupted apply is already recorded. No log yet: nothing is
// ours. Lines that are not records are skipped (the start's other
// readers of the log warn about them).
func RecoverShields(ctx context.Context, auditPath string, rm act.ConfReader) ([]Shield, error) {
	entries, err := act.ReadAuditFile(auditPath, nil)
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
	return ShieldRecords(entries, live), nil
}
