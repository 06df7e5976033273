package learn

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

type finishedList []cluster.App

func (f finishedList) FinishedJobs(_ context.Context, since time.Time) ([]cluster.App, error) {
	var out []cluster.App
	for _, a := range f {
		if a.FinishedTime.After(since) {
			out = append(out, a)
		}
	}
	return out, nil
}

// The loop tracks each report's model predictions; when JobHistory shows a
// job finished they become residuals of its class, which survive a restart.
func TestLearnerScoresTrackedPredictions(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "h.db")
	store, err := calibrate.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var jobs finishedList
	h := &HistoryLearner{Source: &jobs, Store: store}
	if err := h.Learn(context.Background(), cluster.Snapshot{Time: t0}); err != nil {
		t.Fatal(err)
	}
	report := func(stage int, remain float64) []deadline.QueueReport {
		return []deadline.QueueReport{{Queue: "root.q", Jobs: []deadline.JobReport{
			{AppID: "application_1_0001", Class: "etl", Stage: stage, ModelRemain: remain},
			{AppID: "application_1_0002", Class: "etl"},                           // before 10% of maps: nothing to score
			{AppID: "application_1_0003", Class: "", Stage: 20, ModelRemain: 100}, // no class
		}}}
	}
	for _, step := range []struct {
		at     time.Time
		stage  int
		remain float64
	}{{t0.Add(100 * time.Second), 10, 400}, {t0.Add(110 * time.Second), 10, 10}, {t0.Add(200 * time.Second), 20, 250}} {
		if err := h.Track(step.at, report(step.stage, step.remain)); err != nil {
			t.Fatal(err)
		}
	}
	jobs = append(jobs, cluster.App{ID: "application_1_0001", FinishedTime: t0.Add(600 * time.Second), Job: &cluster.Job{State: "SUCCEEDED"}},
		cluster.App{ID: "application_1_0003", FinishedTime: t0.Add(600 * time.Second), Job: &cluster.Job{State: "SUCCEEDED"}})
	if err := h.Learn(context.Background(), cluster.Snapshot{Time: t0.Add(700 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	check := func(what string, r *deadline.Residuals) {
		t.Helper()
		// 500 s left at 10% for 400 predicted; 400 s left at 20% for 250.
		want := map[int]int{10: 1, 20: 1}
		if got := r.Count()["etl"]; len(got) != 2 || got[10] != want[10] || got[20] != want[20] || len(r.Count()) != 1 {
			t.Errorf("%s: residuals %v, want etl %v", what, r.Count(), want)
		}
		r.MinN = 1
		if got := r.Of("etl", 10); len(got) != 1 || got[0] != 1.25 {
			t.Errorf("%s: stage 10 %v, want [1.25]", what, got)
		}
		if got := r.Of("etl", 20); len(got) != 1 || got[0] != 1.6 {
			t.Errorf("%s: stage 20 %v, want [1.6]", what, got)
		}
	}
	check("live", h.Residuals())
	store.Close()
	if store, err = calibrate.Open(path); err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	restarted := &HistoryLearner{Source: &jobs, Store: store}
	if err := restarted.Refresh(); err != nil {
		t.Fatal(err)
	}
	check("after a restart", restarted.Residuals())
}
