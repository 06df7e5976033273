package learn

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/deadline"
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
// (eq. 4.1) uses the rates its stages taught. Finished apps come from the
// History Server: those it saw run, and those that finished while the
// sidecar was down, listed since a durable cursor (learn_spark_backfill.go).
//
// Each cycle it also keeps, per running Spark app it has read, the
// remaining work of its stages (sparkobs.Predict over the history's task
// times: Outlooks, the deadline report's input) and what status shows of
// it (sparkobs.View: SparkApps).
type SparkLearner struct {
	*HistoryLearner
	Spark *sparkobs.Observer
	// Budget bounds the Spark REST requests of a cycle, observe and
	// backfill together (0: sparkobs.DefaultBudget).
	Budget int
	// First marks apps read before the others (those with goals).
	First func(cluster.App) bool

	mu       sync.Mutex
	outlooks map[string]deadline.Outlook
	views    []sparkobs.AppView
	// times are the history's task times (sparkobs.TaskTimesFrom) as of
	// timesN samples: recomputed when the history grew.
	times  sparkobs.TaskTimes
	timesN int
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
		more, _, berrs := s.backfill(ctx, snap, nodes, left) // learn_spark_backfill.go
		samples = append(samples, more...)
		errs = append(errs, berrs...)
	}
	if err := s.ingest(snap, samples); err != nil {
		errs = append(errs, err)
	}
	s.outlook(snap, cy)
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

// outlook keeps the cycle's outlooks and views of the running Spark apps
// it has a read of (the apps the budget left unread keep their last).
func (s *SparkLearner) outlook(snap cluster.Snapshot, cy sparkobs.Cycle) {
	h := s.HistoryLearner
	h.mu.RLock()
	all := h.samples
	h.mu.RUnlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.times == nil || len(all) != s.timesN {
		s.times, s.timesN = sparkobs.TaskTimesFrom(all), len(all)
	}
	s.outlooks, s.views = map[string]deadline.Outlook{}, nil
	for _, a := range snap.RunningApps() {
		stages, ok := cy.Stages[a.ID]
		if !ok {
			continue
		}
		class := s.ClassKey.ClassOf(a)
		p := sparkobs.Predict(class, stages, cy.Slots[a.ID], s.times)
		s.outlooks[a.ID] = deadline.Outlook{Remain: p.Remaining, LogSpread: p.LogSpread, Tasks: p.RemainingTasks, Known: p.Known, Method: "spark-stages",
			Stages: p.Stages, ExecutorCores: executorCores(cy.Slots[a.ID], cy.Executors[a.ID])}
		v := sparkobs.View(a.ID, stages, cy.Executors[a.ID], cy.Slots[a.ID])
		v.Name, v.Queue, v.Class = a.Name, a.Queue, class
		s.views = append(s.views, v)
	}
	sort.Slice(s.views, func(i, j int) bool { return s.views[i].AppID < s.views[j].AppID })
}

// Outlooks are the running Spark apps' remaining work as of the last
// cycle, by app ID (deadline.ReportOptions.Outlooks).
func (s *SparkLearner) Outlooks() map[string]deadline.Outlook {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.outlooks
}

// SparkApps are the running Spark apps as of the last cycle (status and
// the report).
func (s *SparkLearner) SparkApps() []sparkobs.AppView {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sparkobs.AppView(nil), s.views...)
}
