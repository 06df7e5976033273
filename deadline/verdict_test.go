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
