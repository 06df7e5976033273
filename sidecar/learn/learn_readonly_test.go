package learn

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// A read-only learner learns the finished jobs into memory (each attempt
// once, however many cycles see it) and stores nothing: no attempt, no
// cursor, no prediction.
func TestReadOnlyLearnerStoresNothing(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	node := cluster.Node{ID: "n1:8041", Host: "n1", HTTPAddress: "n1:8042", State: "RUNNING", Total: cluster.Resource{MemoryMB: 8192, VCores: 8}}
	snap := cluster.Snapshot{Time: t0.Add(time.Hour), Nodes: []cluster.Node{node}}
	job := func(n int, finish time.Duration) cluster.App {
		a := cluster.App{ID: fmt.Sprintf("application_1_%04d", n), Name: "etl", Tags: []string{"jobclass=etl"}, StartedTime: t0, FinishedTime: t0.Add(finish),
			Job: &cluster.Job{ID: fmt.Sprintf("job_1_%04d", n), State: "SUCCEEDED", MapsTotal: 2}}
		for i := 0; i < 2; i++ {
			a.Job.Attempts = append(a.Job.Attempts, cluster.Attempt{ID: fmt.Sprintf("attempt_1_%04d_m_%06d_0", n, i), Type: cluster.TaskMap, State: "SUCCEEDED",
				NodeID: node.ID, NodeHTTPAddress: node.HTTPAddress, StartTime: t0, FinishTime: t0.Add(finish), Elapsed: finish})
		}
		return a
	}
	path := filepath.Join(t.TempDir(), "h.db")
	w, err := calibrate.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	store, err := calibrate.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	jobs := finishedList{job(1, time.Minute)}
	h := &HistoryLearner{Source: &jobs, Store: store, ClassKey: calibrate.ClassKey("tag"), ReadOnly: true}
	for i := 0; i < 2; i++ { // the second cycle sees the same job again
		if err := h.Learn(context.Background(), snap); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(h.samples); n != 2 {
		t.Fatalf("learned %d samples from one 2-map job seen twice, want 2", n)
	}
	jobs = append(jobs, job(2, 2*time.Minute))
	if err := h.Learn(context.Background(), snap); err != nil {
		t.Fatal(err)
	}
	if err := h.Track(snap.Time, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(h.samples); n != 4 {
		t.Fatalf("learned %d samples after a second job, want 4", n)
	}
	if n, _ := store.Count(); n != 0 {
		t.Errorf("a read-only learner stored %d attempts", n)
	}
	if c, _ := store.Cursor(); !c.IsZero() {
		t.Errorf("a read-only learner moved the cursor to %s", c)
	}
	if tb := h.Table(); tb == nil || len(tb.Classes()) != 1 {
		t.Errorf("the in-memory table has no class: %+v", tb)
	}
}

// unreadableSource lists its jobs and one more JobHistory cannot serve.
type unreadableSource struct{ jobs finishedList }

func (u unreadableSource) FinishedJobs(ctx context.Context, since time.Time) ([]cluster.App, error) {
	jobs, _ := u.jobs.FinishedJobs(ctx, since)
	return jobs, &cluster.UnreadableJobsError{Jobs: []cluster.UnreadableJob{{ID: "job_1_0009", FinishedTime: time.Date(2026, 1, 1, 0, 5, 0, 0, time.UTC), Err: "500"}}}
}

// A job JobHistory cannot serve does not keep a read-only learner from
// the others (the daemon records and retries it; a read-only one skips it).
func TestReadOnlyLearnerSkipsUnreadableJob(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	node := cluster.Node{ID: "n1:8041", Host: "n1", HTTPAddress: "n1:8042", State: "RUNNING", Total: cluster.Resource{MemoryMB: 8192, VCores: 8}}
	a := cluster.App{ID: "application_1_0001", Tags: []string{"jobclass=etl"}, StartedTime: t0, FinishedTime: t0.Add(time.Minute),
		Job: &cluster.Job{ID: "job_1_0001", State: "SUCCEEDED", MapsTotal: 1, Attempts: []cluster.Attempt{{ID: "attempt_1_0001_m_000000_0",
			Type: cluster.TaskMap, State: "SUCCEEDED", NodeID: node.ID, NodeHTTPAddress: node.HTTPAddress, StartTime: t0, FinishTime: t0.Add(time.Minute), Elapsed: time.Minute}}}}
	h := &HistoryLearner{Source: unreadableSource{finishedList{a}}, Store: calibrate.Empty(), ClassKey: calibrate.ClassKey("tag"), ReadOnly: true}
	if err := h.Learn(context.Background(), cluster.Snapshot{Time: t0.Add(time.Hour), Nodes: []cluster.Node{node}}); err != nil {
		t.Fatalf("Learn = %v, want the readable job learned and no error", err)
	}
	if len(h.samples) != 1 {
		t.Errorf("learned %d samples, want 1", len(h.samples))
	}
}
