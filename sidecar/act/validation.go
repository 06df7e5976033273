package act

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// ValidationPath is how a mutation was validated before its PUT; the audit
// record carries it.
type ValidationPath string

// Validation paths.
const (
	// ValidationRM: the RM's POST /scheduler-conf/validate accepted the
	// mutation (after the sidecar's own checks).
	ValidationRM ValidationPath = "rm"
	// ValidationLocalOnly: the RM cannot validate (leveldb store, no
	// endpoint, 5xx, timeout), so only the sidecar's checks ran before the
	// PUT — which the RM still validates and applies as one transaction.
	ValidationLocalOnly ValidationPath = "local-only"
)

// Verdict is the outcome of asking the RM to validate.
type Verdict struct {
	Path   ValidationPath
	Reason string // why local-only; "" for rm
}

// RMValidation asks the RM to validate a mutation and tells apart "the RM
// rejected this configuration" from "the RM could not validate". Both can be
// HTTP 400 with the same message prefix (the leveldb store fails every
// validate with an internal lock error), so wording is only a hint: when
// validate fails, the same endpoint is asked to validate a mutation that
// changes nothing (schedconf.IdentityMutation). If that fails too, RM-side
// validation is unavailable; the verdict is kept per RM for Retry and
// logged once. Share one RMValidation across cycles (the loop copies its
// Applier each cycle; this is held by pointer).
type RMValidation struct {
	// Retry is how long an "unavailable" verdict is trusted before validate
	// is tried again (default 10 minutes): an RM restarted on another store
	// gets its validation back.
	Retry time.Duration
	Now   func() time.Time

	mu   sync.Mutex
	down map[string]downVerdict // by RM identity (its URL)
}

type downVerdict struct {
	reason string
	until  time.Time
}

// RMIdentifier is implemented by ConfAPIs that know which RM they talk to,
// so verdicts are kept per RM (HA: the other RM may use another store).
type RMIdentifier interface {
	RMIdentity() string
}

// Check validates m on the RM. It returns the verdict, or a *RejectedError
// (stage rm-validate) when the RM's validation works and refuses m, or
// another error when the sidecar must not act at all (store not mutable,
// no active RM, cancelled).
func (v *RMValidation) Check(ctx context.Context, api ConfAPI, live schedconf.Conf, m schedconf.Mutation, log hclog.Logger) (Verdict, error) {
	rm := ""
	if id, ok := api.(RMIdentifier); ok {
		rm = id.RMIdentity()
	}
	if reason, ok := v.cachedDown(rm); ok {
		return Verdict{Path: ValidationLocalOnly, Reason: reason}, nil
	}
	verr := api.ValidateMutation(ctx, m)
	if errors.Is(verr, errFileStoreNoValidate) {
		return Verdict{Path: ValidationLocalOnly, Reason: "file store: the RM has no validate endpoint; refreshQueues validates the file and keeps the old queues when it is invalid"}, nil
	}
	if verr == nil {
		v.markUp(rm, log)
		return Verdict{Path: ValidationRM}, nil
	}
	if stop := mustNotAct(ctx, verr); stop != nil {
		return Verdict{}, stop
	}
	// A 5xx, 404, 405, timeout or broken connection carries no verdict on
	// this configuration: the RM could not validate it this time. Apply with
	// local validation (the PUT is validated by the RM atomically); not
	// cached, since it may be transient.
	if !answeredWithVerdict(verr) {
		return Verdict{Path: ValidationLocalOnly, Reason: noVerdictReason(verr)}, nil
	}
	// A 400 is either a real rejection or an RM that cannot validate
	// anything (the leveldb lock error is a 400 too). Does the RM validate
	// anything at all? Ask for a mutation that changes nothing.
	perr := api.ValidateMutation(ctx, schedconf.IdentityMutation(live))
	if perr == nil {
		v.markUp(rm, log)
		return Verdict{Path: ValidationRM}, &RejectedError{Stage: "rm-validate", Err: verr}
	}
	if stop := mustNotAct(ctx, perr); stop != nil {
		return Verdict{}, stop
	}
	reason := unavailableReason(perr)
	v.markDown(rm, reason, log)
	return Verdict{Path: ValidationLocalOnly, Reason: reason}, nil
}

// mustNotAct returns the error that ends the cycle without acting: the store
// is not mutable, there is no active RM, or the caller gave up.
func mustNotAct(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, ErrConfNotMutable):
		return err
	case isNoActiveRM(err):
		return fmt.Errorf("no active ResourceManager, not acting this cycle: %w", err)
	case ctx.Err() != nil:
		return fmt.Errorf("cancelled during RM validation, nothing changed: %w", ctx.Err())
	}
	return nil
}

// isNoActiveRM is the hook for "no active RM" (a standby's 307 with Refresh
// and no Location, body "Can not find any active RM"): the applier must not
// act: the client's yarn.ErrNoActiveRM, an error offering NoActiveRM()
// bool (fakes), or the RM's own message when it reached us as text.
func isNoActiveRM(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, yarn.ErrNoActiveRM) {
		return true
	}
	var n interface{ NoActiveRM() bool }
	if errors.As(err, &n) && n.NoActiveRM() {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "Can not find any active RM") || strings.Contains(msg, "no active ResourceManager")
}

func (v *RMValidation) cachedDown(rm string) (string, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	d, ok := v.down[rm]
	if !ok || !v.now().Before(d.until) {
		return "", false
	}
	return d.reason, true
}

// markDown records the verdict; the first time for an RM it is logged.
func (v *RMValidation) markDown(rm, reason string, log hclog.Logger) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.down == nil {
		v.down = map[string]downVerdict{}
	}
	_, known := v.down[rm]
	v.down[rm] = downVerdict{reason: reason, until: v.now().Add(v.retry())}
	if !known {
		log.Warn("RM-side validation is unavailable: plans are applied after the sidecar's own validation only, and the RM still validates each PUT as one transaction",
			"rm", rm, "reason", reason, "retry_after", v.retry())
	}
}

func (v *RMValidation) markUp(rm string, log hclog.Logger) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, known := v.down[rm]; known {
		delete(v.down, rm)
		log.Info("RM-side validation works again", "rm", rm)
	}
}

func (v *RMValidation) retry() time.Duration {
	if v.Retry <= 0 {
		return 10 * time.Minute
	}
	return v.Retry
}

func (v *RMValidation) now() time.Time {
	if v.Now == nil {
		return time.Now()
	}
	return v.Now()
}

// answeredWithVerdict reports whether validate answered 400, the status of
// the Capacity Scheduler's verdict (RMWebServices.validateAndGetSchedulerConfiguration).
func answeredWithVerdict(err error) bool {
	var mr *yarn.MutationRejectedError
	var re *yarn.RemoteError
	return errors.As(err, &mr) || errors.As(err, &re) && re.Status == 400
}

// noVerdictReason names why validate gave no verdict this time.
func noVerdictReason(err error) string {
	cause, msg := validateFailure(err)
	return fmt.Sprintf("the RM could not validate this time (%s: %s)", cause, msg)
}

// unavailableReason says why validate could not validate a no-op.
func unavailableReason(err error) string {
	cause, msg := validateFailure(err)
	return fmt.Sprintf("%s; a no-op mutation fails validation too: %s", cause, msg)
}

// validateFailure names the likely cause of a failed validate and its
// message, cut to 400 characters. The patterns only name the cause; what
// the applier does was decided by the status or the no-op probe.
func validateFailure(err error) (cause, msg string) {
	msg = err.Error()
	var status int
	var re *yarn.RemoteError
	var mr *yarn.MutationRejectedError
	switch {
	case errors.As(err, &re):
		status = re.Status
	case errors.As(err, &mr):
		status = mr.Status
	}
	var ne net.Error
	cause = "validate fails"
	switch {
	case strings.Contains(msg, "already held by process") || strings.Contains(msg, "DBException"):
		cause = "the leveldb configuration store: Hadoop's validator opens the store a second time and cannot take its lock"
	case status == 404:
		cause = "the RM has no validate endpoint (HTTP 404)"
	case status == 405:
		cause = "the RM does not allow validate (HTTP 405)"
	case status >= 500:
		cause = fmt.Sprintf("the RM fails internally on validate (HTTP %d)", status)
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		cause = "validate timed out"
	case status != 0:
		cause = fmt.Sprintf("validate answers HTTP %d", status)
	}
	const max = 400
	if len(msg) > max {
		msg = msg[:max] + "…"
	}
	return cause, msg
}
