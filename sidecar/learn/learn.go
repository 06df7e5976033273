package learn

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

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
	// RecomputeEvery bounds how often newly ingested attempts rebuild the
	// CR table and models (by the snapshot's clock): a table that is five
	// minutes old loses nothing, and a busy cluster finishes jobs every few
	// seconds. Zero recomputes on every ingest.
	RecomputeEvery time.Duration
	// Locality, when set, says where a finished map attempt read from
	// (BlockMaps.AttemptLocality): samples with one teach read bandwidth.
	Locality func(jobID string, at cluster.Attempt) string
	// ReadOnly learns into memory only and writes nothing to the store
	// (learn_readonly.go): the read-only commands' learner.
	ReadOnly bool
	// Log receives the unreadable jobs' notes (nil: none).
	Log hclog.Logger

	mu     sync.RWMutex
	table  *calibrate.Table
	models map[string]deadline.PhaseModel
	bw     map[string]calibrate.ReadBandwidth
	proc   map[string]calibrate.Processing
	// samples mirrors the store in memory once Refresh has read it, so a
	// cycle that ingests a few jobs does not re-read the whole history.
	samples []calibrate.Sample
	// residuals score past finish predictions (learn_residuals.go).
	residuals *deadline.Residuals
	loaded    bool
	stale     bool // samples hold attempts the table does not reflect yet
	computed  time.Time
	// Read-only learning's own cursor and the attempts it holds.
	memCursor time.Time
	known     map[string]bool
	// unreadable are the jobs JobHistory could not serve (learn_unreadable.go).
	unreadable []calibrate.UnreadableJob
	// finished are the jobs the last Learn read (LastFinished).
	finished []FinishedJob
	// splits are node types whose hosts run a class at two speeds.
	splits []calibrate.TypeSplit
	// jobs are the history's jobs (calibrate.Jobs), for the replay.
	jobs []calibrate.JobRecord
}

// Learn implements Learner. A job JobHistory lists but cannot serve (a
// damaged history file) is skipped and recorded in the store for a later
// try (learn_unreadable.go); the jobs after it are learned and the cursor
// moves past them all.
func (h *HistoryLearner) Learn(ctx context.Context, snap cluster.Snapshot) error {
	h.mu.Lock()
	h.finished = nil
	h.mu.Unlock()
	if h.ReadOnly {
		return h.learnInMemory(ctx, snap)
	}
	cursor, err := h.Store.Cursor()
	if err != nil {
		return fmt.Errorf("read ingest cursor: %w", err)
	}
	jobs, err := h.Source.FinishedJobs(ctx, cursor)
	var skipped *cluster.UnreadableJobsError
	if errors.As(err, &skipped) {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("read finished jobs since %s: %w", cursor.Format(time.RFC3339), err)
	}
	types := h.Classifier.Types(snap.Nodes)
	// Each attempt's node by its NM web address (host:port), so two
	// NodeManagers on one host are told apart; indexed once, not scanned
	// per attempt (attempts × nodes).
	addrs := cluster.IndexNodeAddresses(snap.Nodes)
	in := ingest{}
	var fin []FinishedJob
	for _, a := range jobs {
		fin = append(fin, FinishedJob{AppID: a.ID, Started: a.StartedTime, Finished: a.FinishedTime})
		if err := h.ingestApp(&in, a, types, addrs); err != nil {
			return err
		}
		if a.FinishedTime.After(cursor) {
			cursor = a.FinishedTime
		}
	}
	h.mu.Lock()
	h.finished = fin
	h.mu.Unlock()
	if skipped != nil {
		// Recorded before the cursor moves past them: a restart retries them.
		if err := h.recordUnreadable(snap.Time, skipped.Jobs); err != nil {
			return err
		}
		for _, j := range skipped.Jobs {
			if j.FinishedTime.After(cursor) {
				cursor = j.FinishedTime
			}
		}
	}
	if len(jobs) > 0 || skipped != nil {
		// Before the cursor moves: a failed close is retried with the jobs.
		if err := h.closePredictions(jobs); err != nil {
			return err
		}
		if err := h.Store.SetCursor(cursor); err != nil {
			return fmt.Errorf("save ingest cursor: %w", err)
		}
	}
	retryErr := h.retryUnreadable(ctx, snap.Time, &in, types, addrs)
	if err := h.update(snap, in); err != nil {
		return err
	}
	return retryErr
}

// ingest is what one Learn added to the store.
type ingest struct {
	added   int
	partial bool // some attempts were stored before: re-read to stay exact
	fresh   []calibrate.Sample
}

// ingestApp stores one finished job's attempts.
func (h *HistoryLearner) ingestApp(in *ingest, a cluster.App, types map[string]string, addrs *cluster.NodeAddresses) error {
	ss := calibrate.SamplesFromApp(addrs.WithAttemptNodes(a), h.ClassKey.ClassOf(a), types)
	h.placeReads(a, ss)
	n, err := h.Store.Add(ss)
	if err != nil {
		return err
	}
	in.added += n
	if n == len(ss) {
		in.fresh = append(in.fresh, ss...)
	} else if n > 0 {
		in.partial = true
	}
	return nil
}

// update brings the table and models up to date with what was ingested.
func (h *HistoryLearner) update(snap cluster.Snapshot, in ingest) error {
	added, partial, fresh := in.added, in.partial, in.fresh
	h.mu.RLock()
	loaded := h.loaded
	h.mu.RUnlock()
	switch {
	case !loaded || partial:
		return h.Refresh()
	case added > 0 || h.stale:
		h.mu.Lock()
		h.samples = append(h.samples, fresh...)
		all := h.samples
		h.stale = true
		due := h.RecomputeEvery == 0 || snap.Time.Sub(h.computed) >= h.RecomputeEvery || measuresUnknown(h.table, fresh, all, h.Options.MinSamples)
		h.mu.Unlock()
		if due {
			h.recompute(all)
			h.mu.Lock()
			h.stale, h.computed = false, snap.Time
			h.mu.Unlock()
		}
	}
	return nil
}

// measuresUnknown: the fresh samples complete the measurement of a class on
// a node type whose rate the table does not know yet (all now holds at
// least minSamples maps of that cell, calibrate.Options.MinSamples). Such a
// table is not "five minutes old and loses nothing": the planner sent a
// queue to that type to measure it (Lee §4.3.1.4) and keeps it there until
// the rate is known, so on hetero-100 the reports queue's next job also ran
// on the slower GPU nodes while the measurement waited for RecomputeEvery.
// A cell still short of minSamples waits as before, so a rare type does not
// rebuild the table on every ingest.
func measuresUnknown(t *calibrate.Table, fresh, all []calibrate.Sample, minSamples int) bool {
	if minSamples <= 0 {
		minSamples = calibrate.DefaultMinSamples
	}
	type cell struct{ class, typ string }
	open := map[cell]int{}
	for _, s := range fresh {
		if !s.IsMap() {
			continue
		}
		if t != nil {
			if _, known := t.Ratio(s.Class, s.NodeType); known {
				continue
			}
		}
		open[cell{s.Class, s.NodeType}] = 0
	}
	if len(open) == 0 {
		return false
	}
	for _, s := range all {
		c := cell{s.Class, s.NodeType}
		if n, ok := open[c]; ok && s.IsMap() {
			if n+1 >= minSamples {
				return true
			}
			open[c] = n + 1
		}
	}
	return false
}

// LastFinished implements FinishedReporter: the jobs the last Learn read
// as finished, with their start and finish times.
func (h *HistoryLearner) LastFinished() []FinishedJob {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.finished
}

// TypeSplits implements TypeSplitReporter, from the last recompute.
func (h *HistoryLearner) TypeSplits() []calibrate.TypeSplit {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.splits
}

// Refresh recomputes the CR table from the whole history.
func (h *HistoryLearner) Refresh() error {
	all, err := h.Store.All()
	if err != nil {
		return fmt.Errorf("read calibration history: %w", err)
	}
	if err := h.loadResiduals(); err != nil {
		return err
	}
	h.mu.Lock()
	h.samples, h.loaded = all, true
	h.mu.Unlock()
	h.recompute(all)
	return nil
}

func (h *HistoryLearner) recompute(all []calibrate.Sample) {
	t := calibrate.Estimate(all, h.Options)
	m := ModelsFromSamples(all)
	bw := calibrate.Bandwidths(all, h.Options.MinSamples)
	proc := calibrate.ProcessingTimes(all, h.Options.MinSamples)
	splits := calibrate.TypeSplits(all, calibrate.SplitOptions{})
	jobs := calibrate.Jobs(all)
	h.mu.Lock()
	h.table, h.models, h.bw, h.proc = t, m, bw, proc
	h.splits, h.jobs = splits, jobs
	h.mu.Unlock()
}

// placeReads sets each map sample's locality from the Locality hook.
func (h *HistoryLearner) placeReads(a cluster.App, ss []calibrate.Sample) {
	if h.Locality == nil || a.Job == nil {
		return
	}
	byID := make(map[string]cluster.Attempt, len(a.Job.Attempts))
	for _, at := range a.Job.Attempts {
		byID[at.ID] = at
	}
	for i := range ss {
		if ss[i].IsMap() {
			ss[i].Locality = h.Locality(a.Job.ID, byID[ss[i].AttemptID])
		}
	}
}

// Bandwidths is the read bandwidth by locality per node type learned from
// the history (empty before any attempt with a known locality).
func (h *HistoryLearner) Bandwidths() map[string]calibrate.ReadBandwidth {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.bw
}

// Processing is each class's map processing time per node type.
func (h *HistoryLearner) Processing() map[string]calibrate.Processing {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.proc
}

// Models are the deadline models per class from the history.
func (h *HistoryLearner) Models() map[string]deadline.PhaseModel {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.models
}

// Jobs are the finished jobs the history describes (calibrate.Jobs), as
// of the last recompute: the workload the replay strategy plays back.
func (h *HistoryLearner) Jobs() []calibrate.JobRecord {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.jobs
}

// Table is the latest CR table (nil before the first Learn).
func (h *HistoryLearner) Table() *calibrate.Table {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.table
}

// FinishedJob is a finished job's start and finish as YARN recorded them
// (the RM's or JobHistory's startedTime and finishedTime).
type FinishedJob struct {
	AppID    string
	Started  time.Time
	Finished time.Time
}
