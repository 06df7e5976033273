package sidecar

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// HistorySource lists jobs that finished since a time, with their attempts
// (the yarn client's JobHistory reader).
type HistorySource interface {
	FinishedJobs(ctx context.Context, since time.Time) ([]cluster.App, error)
}

// HistoryLearner ingests finished jobs' map attempts from JobHistory into
// the durable store, incrementally (only jobs finished since the store's
// cursor), and keeps the CR table current.
type HistoryLearner struct {
	Source     HistorySource
	Store      *calibrate.Store
	Classifier calibrate.Classifier
	ClassKey   calibrate.ClassKey
	Options    calibrate.Options

	mu     sync.RWMutex
	table  *calibrate.Table
	models map[string]deadline.PhaseModel
}

// Learn implements Learner.
func (h *HistoryLearner) Learn(ctx context.Context, snap cluster.Snapshot) error {
	cursor, err := h.Store.Cursor()
	if err != nil {
		return fmt.Errorf("read ingest cursor: %w", err)
	}
	jobs, err := h.Source.FinishedJobs(ctx, cursor)
	if err != nil {
		return fmt.Errorf("read finished jobs since %s: %w", cursor.Format(time.RFC3339), err)
	}
	types := h.Classifier.Types(snap.Nodes)
	added := 0
	for _, a := range jobs {
		n, err := h.Store.Add(calibrate.SamplesFromApp(a, h.ClassKey.ClassOf(a), types))
		if err != nil {
			return err
		}
		added += n
		if a.FinishedTime.After(cursor) {
			cursor = a.FinishedTime
		}
	}
	if len(jobs) > 0 {
		if err := h.Store.SetCursor(cursor); err != nil {
			return fmt.Errorf("save ingest cursor: %w", err)
		}
	}
	if added > 0 || h.Table() == nil {
		return h.Refresh()
	}
	return nil
}

// Refresh recomputes the CR table from the whole history.
func (h *HistoryLearner) Refresh() error {
	all, err := h.Store.All()
	if err != nil {
		return fmt.Errorf("read calibration history: %w", err)
	}
	t := calibrate.Estimate(all, h.Options)
	m := ModelsFromSamples(all)
	h.mu.Lock()
	h.table, h.models = t, m
	h.mu.Unlock()
	return nil
}

// Models are the deadline models per class from the history.
func (h *HistoryLearner) Models() map[string]deadline.PhaseModel {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.models
}

// Table is the latest CR table (nil before the first Learn).
func (h *HistoryLearner) Table() *calibrate.Table {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.table
}
