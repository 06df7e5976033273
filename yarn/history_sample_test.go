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

type proxyCounter struct{ n atomic.Int64 }

func (p *proxyCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasPrefix(r.URL.Path, "/proxy/") {
		p.n.Add(1)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Issue 19: a running job is read from its AM again only when the RM's
// view of the app (progress, containers, allocation) changed.
func TestObserveReusesUnchangedJobs(t *testing.T) {
	tc := sim.Start(t, "lee-gpu", 1)
	tc.Step(3 * time.Minute)
	pc := &proxyCounter{}
	c, err := yarn.New(yarn.Config{RMAddresses: []string{tc.URL}, JHSAddress: tc.URL, HTTPClient: &http.Client{Transport: pc}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first, err := c.Observe(ctx, yarn.ObserveOptions{Now: tc.Now(), Jobs: true})
	if err != nil {
		t.Fatal(err)
	}
	n1 := pc.n.Load()
	again, err := c.Observe(ctx, yarn.ObserveOptions{Now: tc.Now(), Jobs: true})
	if err != nil {
		t.Fatal(err)
	}
	if n1 == 0 || pc.n.Load() != n1 {
		t.Fatalf("AM requests: %d for the first snapshot, %d more for an unchanged cluster (want >0, 0)", n1, pc.n.Load()-n1)
	}
	for i, a := range again.RunningApps() {
		if a.Job == nil || first.RunningApps()[i].Job == nil || a.Job.MapsCompleted != first.RunningApps()[i].Job.MapsCompleted {
			t.Fatalf("%s: reused job %+v, first %+v", a.ID, a.Job, first.RunningApps()[i].Job)
		}
	}
	tc.Step(time.Minute)
	if _, err := c.Observe(ctx, yarn.ObserveOptions{Now: tc.Now(), Jobs: true}); err != nil {
		t.Fatal(err)
	}
	if pc.n.Load() == n1 {
		t.Fatal("a minute later (jobs progressed) no AM was read again")
	}
}
