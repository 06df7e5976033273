package decide

import (
	"math"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// The work a kill would lose, by how current the app's job is (issue 19's
// AM budget): a fresh read as measured, a kept read advanced by its age,
// an unread app at the no-model upper bound (never as no work at all).
func TestWorkDoneByJobView(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	started := now.Add(-10 * time.Minute)
	job := func() *cluster.Job {
		return &cluster.Job{ID: "job_1", StartTime: started, MapsTotal: 10, RunningMaps: []float64{0.5}}
	}
	g := &PreemptionGuard{Models: mapModel(100), ClassKey: "tag"} // a map takes 100 s
	for _, tc := range []struct {
		name string
		app  cluster.App
		want []TaskWork
	}{
		{"fresh: as read", cluster.App{JobView: cluster.JobFresh, Job: job(), JobReadAt: now},
			[]TaskWork{{Done: 50, Left: 50}}},
		{"reused, read 20 s ago: 20 s more done", cluster.App{JobView: cluster.JobReused, Job: job(), JobReadAt: now.Add(-20 * time.Second)},
			[]TaskWork{{Done: 70, Left: 30}}},
		{"reused, read 2 min ago: nothing left", cluster.App{JobView: cluster.JobReused, Job: job(), JobReadAt: now.Add(-2 * time.Minute)},
			[]TaskWork{{Done: 170, Left: 0}}},
		{"estimated: every task container run since the start", cluster.App{JobView: cluster.JobEstimated, RunningContainers: 3},
			[]TaskWork{{Done: 600}, {Done: 600}}},
		{"estimated, AM only", cluster.App{JobView: cluster.JobEstimated, RunningContainers: 1}, nil},
		{"not MapReduce: no tasks known", cluster.App{Type: "SPARK", RunningContainers: 5}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.app
			a.ID, a.State, a.StartedTime, a.Tags = "application_1_0001", cluster.AppRunning, started, []string{"jobclass=x"}
			if a.Type == "" {
				a.Type = "MAPREDUCE"
			}
			got := g.workDone(cluster.Snapshot{Time: now})(a)
			if len(got) != len(tc.want) {
				t.Fatalf("work %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if math.Abs(got[i].Done-tc.want[i].Done) > 1e-6 || math.Abs(got[i].Left-tc.want[i].Left) > 1e-6 {
					t.Fatalf("work %+v, want %+v", got, tc.want)
				}
			}
		})
	}
}
