package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
)

// reconcileAtStart records what a killed predecessor left in YARN before
// the first cycle may write (act.ReconcileAudit). The RM may be failing
// over while we start: a few tries, then refuse to start — writing on top
// of an unexplained change would lose the trail.
func reconcileAtStart(auditPath string, rm act.ConfReader, timeout time.Duration, log hclog.Logger) error {
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * time.Second)
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		_, err = act.ReconcileAudit(ctx, auditPath, rm, log.Named("reconcile"))
		cancel()
		if err == nil {
			return nil
		}
		if !errors.Is(err, act.ErrRMRead) {
			break // the audit log's own problem: a retry cannot mend it
		}
		log.Warn("restart reconciliation failed; retrying", "attempt", attempt+1, "error", err)
	}
	return fmt.Errorf("restart reconciliation against the audit log %s: %w", auditPath, err)
}

// recoverShields gives the preemption guard back the shields
// (disable_preemption=true) a predecessor set, from the audit log, so they
// are lifted when their reason ends instead of staying in YARN as if the
// admin had set them. After reconcileAtStart: an interrupted apply is
// recorded by then. An unreadable log or RM stops the start, as
// reconciliation does.
func recoverShields(auditPath string, rm act.ConfReader, g *sidecar.PreemptionGuard, timeout time.Duration, log hclog.Logger) error {
	if g == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	shields, err := sidecar.RecoverShields(ctx, auditPath, rm)
	if err != nil {
		return err
	}
	if len(shields) > 0 {
		log.Info("preemption shields set by an earlier run, from the audit log", "queues", shieldQueues(shields))
	}
	g.AdoptShields(shields)
	return nil
}
