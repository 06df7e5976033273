package act

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/internal/killpoint"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// ConfAPI is what the applier needs from the ResourceManager. The yarn
// package's client satisfies it through an adapter; DryRunAPI wraps one so
// that dry-run runs the same code and only the writes are recorded.
type ConfAPI interface {
	// SchedulerConf is GET /scheduler-conf. It returns an error wrapping
	// ErrConfNotMutable when the RM's configuration store is the file store.
	SchedulerConf(ctx context.Context) (schedconf.Conf, error)
	// ConfVersion is GET /scheduler-conf/version.
	ConfVersion(ctx context.Context) (int64, error)
	// ValidateMutation is POST /scheduler-conf/validate.
	ValidateMutation(ctx context.Context, m schedconf.Mutation) error
	// UpdateConf is PUT /scheduler-conf: one atomic mutation.
	UpdateConf(ctx context.Context, m schedconf.Mutation) error
	// SetAppPriority is PUT /apps/{id}/priority; returns the effective value.
	SetAppPriority(ctx context.Context, appID string, priority int) (int, error)
}

// LabelSource is implemented by ConfAPIs that can list the cluster's node
// labels (GET /get-node-labels), for the label guard of local validation.
type LabelSource interface {
	ClusterLabels(ctx context.Context) ([]string, error)
}

// ErrConfNotMutable means the RM's scheduler configuration store is the file
// store: the mutation API is off and the sidecar refuses to act.
var ErrConfNotMutable = errors.New("the ResourceManager's scheduler configuration is not mutable (yarn.scheduler.configuration.store.class is file); set it to memory, leveldb, zk or fs to let the sidecar act")

// VersionMovedError: another writer changed the scheduler configuration
// after the plan was made (optimistic concurrency; USER-ASKS #6).
type VersionMovedError struct{ Planned, Live int64 }

func (e *VersionMovedError) Error() string {
	return fmt.Sprintf("scheduler-conf version moved from %d (planned) to %d (live): another writer changed the queues; skipping this cycle", e.Planned, e.Live)
}

// RejectedError: a validation step refused the mutation; nothing changed.
type RejectedError struct {
	Stage string // "local" or "rm-validate" or "rm-apply"
	Err   error
}

func (e *RejectedError) Error() string {
	return fmt.Sprintf("mutation rejected by %s validation: %v", e.Stage, e.Err)
}
func (e *RejectedError) Unwrap() error { return e.Err }

// VerifyError: the configuration read back after a mutation differs from
// what was applied.
type VerifyError struct {
	Mismatches []string // "key: want X, got Y"
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("read-back after apply differs in %d properties (first: %s)", len(e.Mismatches), e.Mismatches[0])
}

// RollbackError: restoring the previous configuration failed too. This is
// the one case where YARN may be left with the new configuration; it is
// logged loudly and audited.
type RollbackError struct{ Cause, Err error }

func (e *RollbackError) Error() string {
	return fmt.Sprintf("rollback after %v failed: %v; the scheduler configuration may hold the new values — check /ws/v1/cluster/scheduler-conf", e.Cause, e.Err)
}
func (e *RollbackError) Unwrap() error { return e.Err }

// Applier is the only code that writes to YARN. Every attempt is one audit
// line. Writes run under a context detached from the caller's cancellation
// (bounded by WriteTimeout), so a SIGTERM never stops a mutation half-way:
// once the PUT is sent, the verify and, if needed, the rollback complete.
type Applier struct {
	// Validation asks the RM to validate and remembers when it cannot; held
	// by pointer so copies of the Applier share it (nil = a fresh one per
	// Apply, which forgets the verdict and logs it every time).
	Validation *RMValidation

	API          ConfAPI
	Audit        *AuditLog
	Mode         Mode
	User         string
	Labels       []string // cluster node labels for the label guard; nil = read from the API (LabelSource) when a mutation names a label
	WriteTimeout time.Duration
	Log          hclog.Logger
	Now          func() time.Time
	// Rate bounds how often mutations are written (ratelimit.go); nil = no bound.
	Rate *RateLimit

	Cycle int64
}

// Outcome is what one Apply did.
type Outcome struct {
	Result        Result
	VersionBefore int64
	VersionAfter  int64
	Priorities    []plan.PriorityChange // effective values after the PUTs
	// Validation and ValidationReason: the path taken before the PUT, as in
	// the audit record.
	Validation       ValidationPath
	ValidationReason string
	// MutationsLastHour counts the mutations of the last hour (rate limit).
	MutationsLastHour int
}

// Apply runs the safety sequence for one plan: refuse a non-mutable store →
// version check → local validation (Hadoop's checks plus the guards Hadoop
// lacks: unknown queues, unknown labels) → RM validation, or local-only when
// the RM cannot validate (validation.go) → version re-check → one PUT →
// read back and compare → on error or mismatch, restore the previous
// configuration. Then app priorities. One audit line whatever happens; it
// names the validation path taken and why.
func (a *Applier) Apply(ctx context.Context, plan *plan.Plan) (out Outcome, err error) {
	a.Cycle++
	log := a.logger()
	entry := AuditEntry{Time: a.now(), Cycle: a.Cycle, Mode: a.Mode, User: a.User,
		VersionBefore: plan.ConfVersion, Reasons: plan.Reasons, Calibrations: plan.Calibrations}
	entry.Before, entry.After = changedProps(plan.Base, plan.Desired)
	defer func() {
		out.MutationsLastHour = a.Rate.PerHour(planTime(plan, a.now()))
		entry.Result = out.Result
		entry.VersionAfter = out.VersionAfter
		entry.Priorities = out.Priorities
		out.Validation, out.ValidationReason = entry.Validation, entry.ValidationReason
		if err != nil {
			entry.Error = err.Error()
		}
		if out.Result == ResultNoChange || out.Result == ResultDeferred || a.Audit == nil {
			return
		}
		killpoint.At(killpoint.BeforeAudit)
		if aerr := a.Audit.Append(entry); aerr != nil {
			log.Error("audit log write failed", "error", aerr)
			err = errors.Join(err, aerr)
		}
	}()
	out.VersionBefore, out.VersionAfter = plan.ConfVersion, plan.ConfVersion
	if plan.Empty() {
		out.Result = ResultNoChange
		return out, nil
	}

	mutates := len(plan.Mutation.UpdateQueue)+len(plan.Mutation.AddQueue)+len(plan.Mutation.RemoveQueue)+len(plan.Mutation.GlobalUpdates) > 0
	if ok, why := a.Rate.Allow(planTime(plan, a.now()), plan); mutates && !ok {
		log.Info("mutation deferred", "reason", why)
		entry.Error = "deferred: " + why
		out.Result = ResultDeferred
		return out, nil
	}
	if mutates {
		res, version, err := a.applyMutation(ctx, plan, &entry, log)
		if res == ResultApplied {
			a.Rate.Record(planTime(plan, a.now()))
			a.Rate.RecordChanges(planTime(plan, a.now()), plan)
		}
		out.Result, out.VersionAfter = res, version
		if err != nil {
			return out, err
		}
	} else {
		out.Result = ResultApplied
	}

	for _, pc := range plan.Priorities {
		wctx, cancel := a.writeContext(ctx)
		got, perr := a.API.SetAppPriority(wctx, pc.AppID, pc.To)
		cancel()
		if perr != nil {
			log.Warn("app priority not changed", "app", pc.AppID, "want", pc.To, "error", perr)
			err = errors.Join(err, fmt.Errorf("set priority of %s to %d: %w", pc.AppID, pc.To, perr))
			continue
		}
		pc.To = got
		out.Priorities = append(out.Priorities, pc)
	}
	if a.Mode.RecordsOnly() {
		out.Result = ResultDryRun
	}
	return out, err
}

func (a *Applier) applyMutation(ctx context.Context, plan *plan.Plan, entry *AuditEntry, log hclog.Logger) (Result, int64, error) {
	if g, ok := a.API.(WriteGate); ok {
		if err := g.CanWrite(ctx); err != nil {
			return ResultRefused, plan.ConfVersion, err
		}
	}
	live, err := a.API.SchedulerConf(ctx)
	if err != nil {
		if errors.Is(err, ErrConfNotMutable) {
			return ResultRefused, plan.ConfVersion, err
		}
		return ResultFailed, plan.ConfVersion, fmt.Errorf("read live scheduler-conf: %w", err)
	}
	version, err := a.API.ConfVersion(ctx)
	if err != nil {
		return ResultFailed, plan.ConfVersion, fmt.Errorf("read scheduler-conf version: %w", err)
	}
	if version != plan.ConfVersion {
		return ResultVersionMoved, version, &VersionMovedError{Planned: plan.ConfVersion, Live: version}
	}
	// Local validation: first what Hadoop would wrongly accept, then what
	// the Capacity Scheduler checks when it re-initialises its queues.
	labels, err := a.clusterLabels(ctx, plan.Mutation)
	if err != nil {
		if stop := mustNotAct(ctx, err); stop != nil {
			return ResultFailed, version, stop
		}
		return ResultFailed, version, fmt.Errorf("read cluster node labels for local validation, nothing changed: %w", err)
	}
	if err := schedconf.CheckMutation(live, plan.Mutation, labels); err != nil {
		return ResultRejected, version, &RejectedError{Stage: "local", Err: err}
	}
	after, err := live.Apply(plan.Mutation)
	if err != nil {
		return ResultRejected, version, &RejectedError{Stage: "local", Err: err}
	}
	if err := schedconf.Validate(after); err != nil {
		return ResultRejected, version, &RejectedError{Stage: "local", Err: err}
	}
	validation := a.Validation
	if validation == nil {
		validation = &RMValidation{}
	}
	verdict, err := validation.Check(ctx, a.API, live, plan.Mutation, log)
	entry.Validation, entry.ValidationReason = verdict.Path, verdict.Reason
	if err != nil {
		var rej *RejectedError
		switch {
		case errors.As(err, &rej):
			return ResultRejected, version, err
		case errors.Is(err, ErrConfNotMutable):
			return ResultRefused, version, err
		}
		return ResultFailed, version, err
	}
	if err := ctx.Err(); err != nil {
		return ResultFailed, version, fmt.Errorf("cancelled before apply, nothing changed: %w", err)
	}
	// Re-check the version as late as possible: PUT takes no precondition.
	if v, err := a.API.ConfVersion(ctx); err != nil {
		return ResultFailed, version, fmt.Errorf("re-read scheduler-conf version: %w", err)
	} else if v != version {
		return ResultVersionMoved, v, &VersionMovedError{Planned: plan.ConfVersion, Live: v}
	}

	// From here on the caller's cancellation is ignored: finish what we start.
	wctx, cancel := a.writeContext(ctx)
	defer cancel()
	if err := a.recordIntent(plan, version); err != nil {
		return ResultFailed, version, err // nothing sent
	}
	killpoint.At(killpoint.BeforePut)
	putErr := a.API.UpdateConf(wctx, plan.Mutation)
	killpoint.At(killpoint.AfterPut)
	got, readErr := a.API.SchedulerConf(wctx)
	newVersion, _ := a.API.ConfVersion(wctx)
	if readErr != nil && putErr != nil && isNoActiveRM(putErr) && isNoActiveRM(readErr) {
		// Failover under way: the client says no RM took the PUT, and no RM
		// answers. A blind rollback would fail the same way; nothing is
		// assumed applied and the next cycle plans from what it reads.
		return ResultFailed, version, fmt.Errorf("no active ResourceManager took the PUT and none answers the read-back (failover under way); nothing is assumed applied, the next cycle re-reads the configuration: %w", putErr)
	}
	if readErr != nil {
		// We cannot tell what the RM holds: restore the previous conf blind.
		cause := fmt.Errorf("read back after apply: %w", readErr)
		if putErr != nil {
			cause = fmt.Errorf("apply: %v; %w", putErr, cause)
		}
		return a.rollback(wctx, live, nil, cause, entry, log)
	}
	if putErr != nil {
		if mismatches := diffOn(live, got, after); len(mismatches) == 0 {
			if isNoActiveRM(putErr) {
				return ResultFailed, newVersion, fmt.Errorf("no active ResourceManager took the PUT; nothing changed: %w", putErr)
			}
			// The RM refused as one transaction: nothing changed.
			return ResultRejected, newVersion, &RejectedError{Stage: "rm-apply", Err: putErr}
		}
		if landedWhole(live, got, after, version, newVersion) {
			log.Warn("the PUT's answer was lost but the read-back and the version show it landed whole", "error", putErr,
				"version_before", version, "version_after", newVersion)
			return ResultApplied, newVersion, nil
		}
		return a.rollback(wctx, live, got, fmt.Errorf("apply failed but the conf changed: %w", putErr), entry, log)
	}
	if mismatches := diffOn(after, got, after, live); len(mismatches) > 0 {
		return a.rollback(wctx, live, got, &VerifyError{Mismatches: mismatches}, entry, log)
	}
	if a.Mode == ModeDryRun {
		// The DryRunAPI recorded it; nothing reached YARN.
		log.Debug("dry run: the mutation passed validation and was not written", "version", version, "changes", len(plan.Changes),
			"validation", verdict.Path)
		return ResultApplied, newVersion, nil
	}
	log.Info("scheduler configuration applied", "version_before", version, "version_after", newVersion, "changes", len(plan.Changes),
		"validation", verdict.Path)
	return ResultApplied, newVersion, nil
}

// rollback restores prev. got is what the RM holds now (nil if unknown).
// The RM unsets a queue property given an empty value but keeps a global
// key present as "" (recorded on 3.3.6), so a global key the failed apply
// created cannot be removed: rollback verifies it reads back as "" (which
// Hadoop's getBoolean reads as unset) and records it in the audit line's
// rollbackResidue.
func (a *Applier) rollback(ctx context.Context, prev, got schedconf.Conf, cause error, entry *AuditEntry, log hclog.Logger) (Result, int64, error) {
	log.Warn("restoring previous scheduler configuration", "cause", cause)
	if got == nil {
		var err error
		if got, err = a.API.SchedulerConf(ctx); err != nil {
			rerr := &RollbackError{Cause: cause, Err: fmt.Errorf("read conf: %w", err)}
			log.Error("ROLLBACK FAILED", "error", rerr)
			return ResultFailed, 0, rerr
		}
	}
	undo := schedconf.Diff(got, prev)
	if err := a.API.UpdateConf(ctx, undo); err != nil {
		rerr := &RollbackError{Cause: cause, Err: err}
		log.Error("ROLLBACK FAILED", "error", rerr)
		return ResultFailed, 0, rerr
	}
	back, err := a.API.SchedulerConf(ctx)
	if err != nil {
		return ResultFailed, 0, &RollbackError{Cause: cause, Err: fmt.Errorf("read back after rollback: %w", err)}
	}
	if m := diffOn(prev, back, prev, got); len(m) > 0 {
		return ResultFailed, 0, &RollbackError{Cause: cause, Err: &VerifyError{Mismatches: m}}
	}
	entry.RollbackResidue = residue(prev, back)
	if len(entry.RollbackResidue) > 0 {
		log.Warn("rollback left global keys present with an empty value (the RM cannot remove a global key)", "keys", entry.RollbackResidue)
	}
	v, _ := a.API.ConfVersion(ctx)
	return ResultRolledBack, v, cause
}

// residue lists keys absent from prev that back holds as "" (verified equal
// by diffOn, since an absent key reads "").
func residue(prev, back schedconf.Conf) []string {
	var out []string
	for k, v := range back {
		if _, was := prev[k]; !was && v == "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// clusterLabels are the node labels the label guard checks against; read
// from the RM only when the mutation names a label (a cluster without node
// labels is never blocked by a failing label read).
func (a *Applier) clusterLabels(ctx context.Context, m schedconf.Mutation) ([]string, error) {
	if a.Labels != nil {
		return a.Labels, nil
	}
	if !m.NamesLabels() {
		return nil, nil
	}
	if ls, ok := a.API.(LabelSource); ok {
		labels, err := ls.ClusterLabels(ctx)
		if err != nil {
			return nil, err
		}
		if labels == nil {
			labels = []string{}
		}
		return labels, nil
	}
	return nil, nil
}

// diffOn compares want and got on every key present in any of the key sets.
func diffOn(want, got schedconf.Conf, keySets ...schedconf.Conf) []string {
	keys := map[string]bool{}
	for _, ks := range keySets {
		for k := range ks {
			keys[k] = true
		}
	}
	var out []string
	for k := range keys {
		if want[k] != got[k] {
			out = append(out, fmt.Sprintf("%s: want %q, got %q", k, want[k], got[k]))
		}
	}
	sort.Strings(out)
	return out
}

// changedProps lists the properties that differ, old and new values.
func changedProps(before, after schedconf.Conf) (map[string]string, map[string]string) {
	b, a := map[string]string{}, map[string]string{}
	for k, v := range after {
		if before[k] != v {
			b[k], a[k] = before[k], v
		}
	}
	for k, v := range before {
		if _, ok := after[k]; !ok {
			b[k], a[k] = v, ""
		}
	}
	return b, a
}

func (a *Applier) writeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	t := a.WriteTimeout
	if t == 0 {
		t = 30 * time.Second
	}
	return context.WithTimeout(context.WithoutCancel(ctx), t)
}

func (a *Applier) logger() hclog.Logger {
	if a.Log == nil {
		return hclog.NewNullLogger()
	}
	return a.Log
}

func (a *Applier) now() time.Time {
	if a.Now == nil {
		return time.Now()
	}
	return a.Now()
}
