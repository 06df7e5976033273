package learn

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Read-only learning. A read-only command (plan, deadlines, status,
// report, labels plan) writes nothing anywhere, yet its plan should rest on
// the jobs JobHistory already holds. With HistoryLearner.ReadOnly set, Learn
// reads the jobs finished since the store's cursor (or since what this
// process already read) and adds their attempts to the rates in memory
// only: no attempt, cursor or prediction reaches the store, which may be
// opened read-only or be absent (calibrate.OpenReadOnly).

// learnInMemory is Learn for a read-only learner.
func (h *HistoryLearner) learnInMemory(ctx context.Context, snap cluster.Snapshot) error {
	cursor, err := h.Store.Cursor()
	if err != nil {
		return fmt.Errorf("read ingest cursor: %w", err)
	}
	h.mu.RLock()
	loaded := h.loaded
	if h.memCursor.After(cursor) {
		cursor = h.memCursor
	}
	h.mu.RUnlock()
	if !loaded {
		if err := h.Refresh(); err != nil {
			return err
		}
	}
	jobs, err := h.Source.FinishedJobs(ctx, cursor)
	var skipped *cluster.UnreadableJobsError
	if errors.As(err, &skipped) {
		// Jobs JobHistory cannot serve are left to the daemon, which
		// records and retries them; the rest are learned.
		err = nil
	}
	if err != nil {
		return fmt.Errorf("read finished jobs since %s: %w", cursor.Format(time.RFC3339), err)
	}
	types := h.Classifier.Types(snap.Nodes)
	addrs := cluster.IndexNodeAddresses(snap.Nodes)
	var samples []calibrate.Sample
	h.mu.Lock()
	for _, a := range jobs {
		ss := calibrate.SamplesFromApp(addrs.WithAttemptNodes(a), h.ClassKey.ClassOf(a), types)
		h.placeReads(a, ss)
		samples = append(samples, ss...)
		if a.FinishedTime.After(h.memCursor) {
			h.memCursor = a.FinishedTime
		}
	}
	if skipped != nil {
		for _, j := range skipped.Jobs {
			if j.FinishedTime.After(h.memCursor) {
				h.memCursor = j.FinishedTime
			}
		}
	}
	h.mu.Unlock()
	h.addInMemory(samples)
	return nil
}

// addInMemory adds samples not held yet (by attempt id) to the rates of
// this process only; the Spark learner's samples of a read-only command
// come here too.
func (h *HistoryLearner) addInMemory(samples []calibrate.Sample) {
	h.mu.Lock()
	if h.known == nil {
		h.known = make(map[string]bool, len(h.samples))
		for _, s := range h.samples {
			h.known[s.AttemptID] = true
		}
	}
	var fresh []calibrate.Sample
	for _, s := range samples {
		if s.AttemptID != "" && !h.known[s.AttemptID] {
			h.known[s.AttemptID] = true
			fresh = append(fresh, s)
		}
	}
	h.samples = append(h.samples, fresh...)
	all := h.samples
	h.mu.Unlock()
	if len(fresh) > 0 {
		h.recompute(all)
	}
}
