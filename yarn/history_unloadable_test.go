package yarn_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// A job JobHistory cannot load (500, as recorded in jhs-unloadable/) is
// left out and named; the other jobs are read in full, and FinishedJob
// reads a job by id, naming it again while it stays unloadable.
func TestFinishedJobsSkipUnloadable(t *testing.T) {
	tc := sim.Start(t, "lee-toy", 1)
	if !tc.RunUntilDone(time.Hour) {
		t.Fatal("not done")
	}
	apps := tc.Apps()
	if len(apps) < 2 {
		t.Fatalf("%d apps, want 2", len(apps))
	}
	bad := apps[0]
	if err := tc.DamageHistory(bad.ID); err != nil {
		t.Fatal(err)
	}
	c, err := yarn.New(yarn.Config{RMAddresses: []string{tc.URL}, JHSAddress: tc.URL, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := c.FinishedJobs(context.Background(), time.Time{})
	var ue *cluster.UnreadableJobsError
	if !errors.As(err, &ue) || len(ue.Jobs) != 1 {
		t.Fatalf("err %v, want an UnreadableJobsError naming one job", err)
	}
	badJob := "job" + strings.TrimPrefix(bad.ID, "application")
	u := ue.Jobs[0]
	if u.ID != badJob || u.AppID != bad.ID || u.Queue != bad.Queue || u.FinishedTime.IsZero() || !strings.Contains(u.Err, "Could not load history file") {
		t.Errorf("unreadable job %+v, want %s in %s with its finish time and JobHistory's message", u, badJob, bad.Queue)
	}
	if len(jobs) != len(apps)-1 {
		t.Fatalf("%d jobs read, want %d (all but the damaged one)", len(jobs), len(apps)-1)
	}
	for _, j := range jobs {
		if j.ID == bad.ID || j.Job == nil || len(j.Job.Attempts) == 0 {
			t.Errorf("job %s read with %v", j.ID, j.Job)
		}
	}

	if _, err := c.FinishedJob(context.Background(), badJob); !errors.As(err, &ue) || ue.Jobs[0].ID != badJob {
		t.Errorf("FinishedJob(%s): %v, want it named unreadable", badJob, err)
	}
	good := jobs[0]
	got, err := c.FinishedJob(context.Background(), "job"+strings.TrimPrefix(good.ID, "application"))
	if err != nil || got.ID != good.ID || got.Queue != good.Queue || len(got.Job.Attempts) != len(good.Job.Attempts) {
		t.Errorf("FinishedJob(%s): %+v %v, want what FinishedJobs read", good.ID, got, err)
	}
}
