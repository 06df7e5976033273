package yarn_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

type historyCounter struct{ n atomic.Int64 }

func (h *historyCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.Contains(r.URL.Path, "/ws/v1/history/") {
		h.n.Add(1)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Issue 19: learning reads a sample of each finished job's tasks — 64 of
// each type by default — so a 256-map job costs 2 + 64 + 64 + reduces
// requests instead of 2 + 256 + 256 + reduces, and the sample spans the job.
func TestFinishedJobsSampleTasks(t *testing.T) {
	tc := sim.Start(t, "lee-gpu", 1)
	if !tc.RunUntilDone(2 * time.Hour) {
		t.Fatal("not done")
	}
	read := func(perType int) ([]cluster.App, int64) {
		hc := &historyCounter{}
		c, err := yarn.New(yarn.Config{RMAddresses: []string{tc.URL}, JHSAddress: tc.URL, HistoryTasksPerJob: perType, HTTPClient: &http.Client{Transport: hc}})
		if err != nil {
			t.Fatal(err)
		}
		jobs, err := c.FinishedJobs(context.Background(), time.Time{})
		if err != nil || len(jobs) != 2 {
			t.Fatalf("finished jobs: %d %v", len(jobs), err)
		}
		return jobs, hc.n.Load()
	}
	all, allN := read(-1)
	sampled, sampledN := read(0)
	for i, j := range sampled {
		maps, first, last := 0, "", ""
		for _, a := range j.Job.Attempts {
			if a.Type == cluster.TaskMap && a.Succeeded() && a.HDFSBytesRead > 0 {
				maps++
				if first == "" {
					first = a.TaskID
				}
				last = a.TaskID
			}
		}
		if maps != 64 {
			t.Errorf("job %s: %d sampled maps with bytes, want 64", j.ID, maps)
		}
		if first == last || len(all[i].Job.Attempts) <= len(j.Job.Attempts) {
			t.Errorf("job %s: sample %d of %d attempts, from %s to %s", j.ID, len(j.Job.Attempts), len(all[i].Job.Attempts), first, last)
		}
	}
	if sampledN*3 > allN {
		t.Fatalf("JobHistory requests: %d sampled vs %d all (want at least 3× fewer for 256-map jobs)", sampledN, allN)
	}
	t.Logf("JobHistory requests for 2 finished 256-map jobs: %d reading every task, %d sampled", allN, sampledN)
}
