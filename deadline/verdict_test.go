package deadline

import (
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// A job with a goal always gets a verdict: without a model of its class it
// says so, instead of a blank (issue 18).
func TestVerdictNeverBlank(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	app := func(id, class string, progress float64) cluster.App {
		return cluster.App{ID: id, Name: id, Queue: "root.q", State: cluster.AppRunning, Progress: progress,
			StartedTime: now.Add(-10 * time.Minute), Tags: []string{"deadline=+1h", "jobclass=" + class}, RunningContainers: 3}
	}
	snap := cluster.Snapshot{Time: now, Apps: []cluster.App{app("a1", "etl", 50), app("a2", "", 50), app("a3", "etl", 0)}}
	classOf := func(a cluster.App) string { v, _ := a.Tag("jobclass"); return v }
	want := map[string]string{"a1": "unknown (no history of class etl)", "a2": UnknownVerdict(""), "a3": "unknown (no history of class etl)"}
	for _, q := range Report(snap, nil, ReportOptions{ClassOf: classOf}) {
		for _, j := range q.Jobs {
			if j.Verdict != want[j.AppID] {
				t.Errorf("%s: verdict %q, want %q", j.AppID, j.Verdict, want[j.AppID])
			}
			delete(want, j.AppID)
		}
	}
	if len(want) != 0 {
		t.Errorf("jobs missing from the report: %v", want)
	}
}

// A job not read this cycle (issue 19's AM budget) is extrapolated from
// the RM's progress and says so; a kept read says how old it is.
func TestReportSaysHowCurrentTheJobIs(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	app := func(id string, view cluster.JobView, job *cluster.Job, readAt time.Time) cluster.App {
		return cluster.App{ID: id, Name: id, Queue: "root.q", State: cluster.AppRunning, Progress: 50, Type: "MAPREDUCE",
			StartedTime: now.Add(-10 * time.Minute), Tags: []string{"deadline=+1h", "jobclass=etl"}, RunningContainers: 3,
			Job: job, JobView: view, JobReadAt: readAt}
	}
	job := &cluster.Job{MapsTotal: 10, MapsCompleted: 5, RunningMaps: []float64{0.5}}
	snap := cluster.Snapshot{Time: now, Apps: []cluster.App{
		app("fresh", cluster.JobFresh, job, now),
		app("reused", cluster.JobReused, job, now.Add(-time.Minute)),
		app("estimated", cluster.JobEstimated, nil, time.Time{}),
	}}
	classOf := func(a cluster.App) string { v, _ := a.Tag("jobclass"); return v }
	models := map[string]PhaseModel{"etl": {Map: LogNormal{Mu: 3}, Reduce: LogNormal{Mu: 3}}}
	want := map[string]struct {
		method string
		view   cluster.JobView
		age    time.Duration
	}{
		"fresh":     {"monte-carlo", cluster.JobFresh, 0},
		"reused":    {"monte-carlo", cluster.JobReused, time.Minute},
		"estimated": {"extrapolation", cluster.JobEstimated, 0},
	}
	for _, q := range Report(snap, models, ReportOptions{ClassOf: classOf, Samples: 50}) {
		for _, j := range q.Jobs {
			w := want[j.AppID]
			if j.Method != w.method || j.JobView != w.view || j.JobAge != w.age {
				t.Errorf("%s: %s, job %q aged %v; want %s, %q aged %v", j.AppID, j.Method, j.JobView, j.JobAge, w.method, w.view, w.age)
			}
			delete(want, j.AppID)
		}
	}
	if len(want) != 0 {
		t.Errorf("jobs missing from the report: %v", want)
	}
}

// Remaining counts the tasks not finished: 10 maps, 5 done, 1 running →
// 5 maps left; 3 reduces, 1 done → 2 more: 7 containers would run them all.
func TestReportRemainingTasks(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	job := &cluster.Job{MapsTotal: 10, MapsCompleted: 5, RunningMaps: []float64{0.5}, ReducesTotal: 3, ReducesCompleted: 1}
	snap := cluster.Snapshot{Time: now, Apps: []cluster.App{{ID: "a", Name: "a", Queue: "root.q", State: cluster.AppRunning, Progress: 50,
		Type: "MAPREDUCE", StartedTime: now.Add(-10 * time.Minute), Tags: []string{"deadline=+1h", "jobclass=etl"}, RunningContainers: 3,
		Job: job, JobView: cluster.JobFresh, JobReadAt: now}}}
	classOf := func(a cluster.App) string { v, _ := a.Tag("jobclass"); return v }
	models := map[string]PhaseModel{"etl": {Map: LogNormal{Mu: 3}, Reduce: LogNormal{Mu: 3}}}
	qs := Report(snap, models, ReportOptions{ClassOf: classOf, Samples: 50})
	if len(qs) != 1 || len(qs[0].Jobs) != 1 {
		t.Fatalf("want one job, got %+v", qs)
	}
	if got := qs[0].Jobs[0].Remaining; got != 7 {
		t.Errorf("Remaining = %d, want 7", got)
	}
}
