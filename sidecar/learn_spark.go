package sidecar

import (
	"context"
	"errors"
	"fmt"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// SparkLearner is a HistoryLearner that also learns from Spark
// applications (issue 36): each cycle it reads the snapshot's running
// Spark apps through the RM's web proxy within Budget (sparkobs.Observer)
// and backfills the finished ones from the History Server; their tasks'
// samples go into the same durable history as MapReduce's, so the CR
// table holds Spark stage classes (sparkobs.StageClass) beside MapReduce
// classes. Everything else (tables, models, residuals) is the embedded
// HistoryLearner's.
//
// The plan sees a running Spark app by its app class, whose CR row is its
// stages' family row (calibrate/families.go), so its progress share
// (eq. 4.1) uses the rates its stages taught. Not done here: the finished
// Spark apps of before a restart (the observer backfills the apps it saw
// running), and the deadline report's verdicts for Spark apps (the
// outlook, sparkobs.Predict, is measured by the bench, not wired into
// deadline/).
type SparkLearner struct {
	*HistoryLearner
	Spark *sparkobs.Observer
	// Budget bounds the Spark REST requests of a cycle, observe and
	// backfill together (0: sparkobs.DefaultBudget).
	Budget int
	// First marks apps read before the others (those with goals).
	First func(cluster.App) bool
}

// Learn implements Learner: MapReduce's JobHistory first, then Spark.
func (s *SparkLearner) Learn(ctx context.Context, snap cluster.Snapshot) error {
	errMR := s.HistoryLearner.Learn(ctx, snap)
	budget := s.Budget
	if budget == 0 {
		budget = sparkobs.DefaultBudget
	}
	nodes := sparkobs.NodesOf(snap.Nodes, s.Classifier.Types(snap.Nodes))
	cy := s.Spark.Observe(ctx, snap.Time, snap.Apps, nodes, sparkobs.Options{Budget: budget, First: s.First, ClassOf: s.ClassKey.ClassOf})
	samples := cy.Samples
	var errs []error
	errs = append(errs, cy.Errors...)
	if left := budget - cy.Requests; left > 0 {
		more, _, berrs := s.Spark.Backfill(ctx, nil, nodes, s.ClassKey.ClassOf, left)
		samples = append(samples, more...)
		errs = append(errs, berrs...)
	}
	if err := s.ingest(snap, samples); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return errors.Join(append([]error{errMR}, fmt.Errorf("spark: %w", errors.Join(errs...)))...)
	}
	return errMR
}

// ingest stores samples and brings the table up to date as Learn does
// for MapReduce's (RecomputeEvery, or at once when they complete a cell
// the table does not know yet).
func (s *SparkLearner) ingest(snap cluster.Snapshot, samples []calibrate.Sample) error {
	if len(samples) == 0 {
		return nil
	}
	h := s.HistoryLearner
	if h.ReadOnly { // a read-only command: in memory only (learn_readonly.go)
		h.addInMemory(samples)
		return nil
	}
	n, err := h.Store.Add(samples)
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if n < len(samples) {
		return h.Refresh() // some were stored before: re-read to stay exact
	}
	h.mu.Lock()
	if !h.loaded {
		h.mu.Unlock()
		return h.Refresh()
	}
	h.samples = append(h.samples, samples...)
	all := h.samples
	due := h.RecomputeEvery == 0 || snap.Time.Sub(h.computed) >= h.RecomputeEvery || measuresUnknown(h.table, samples, all, h.Options.MinSamples)
	h.stale = !due
	h.mu.Unlock()
	if due {
		h.recompute(all)
		h.mu.Lock()
		h.computed = snap.Time
		h.mu.Unlock()
	}
	return nil
}
