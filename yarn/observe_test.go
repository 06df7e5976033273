package yarn_test

import (
	"context"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
)

func TestObserveMiniCluster(t *testing.T) {
	tc := sim.Start(t, "lee-gpu", 1)
	tc.Step(3 * time.Minute)
	c, err := yarn.New(yarn.Config{RMAddresses: []string{tc.URL}, JHSAddress: tc.URL, Timeout: 5 * time.Second, HistoryTasksPerJob: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	snap, err := c.Observe(ctx, yarn.ObserveOptions{Now: tc.Now(), Jobs: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Errors) > 0 {
		t.Fatalf("load errors: %+v", snap.Errors)
	}
	if len(snap.Nodes) != 2 || len(snap.RunningApps()) != 2 {
		t.Fatalf("nodes %d apps %d", len(snap.Nodes), len(snap.RunningApps()))
	}
	gpu, ok := snap.Partition("gpu")
	if !ok || gpu.Total.GPUs != 4 || gpu.Exclusive {
		t.Fatalf("gpu partition: %+v", gpu)
	}
	truth := tc.ContainersByType()
	for _, a := range snap.RunningApps() {
		held := 0
		for _, n := range a.ContainersByNode {
			held += n
		}
		want := 1 // the AM
		for _, n := range truth[a.ID] {
			want += n
		}
		if held != want {
			t.Errorf("%s holds %d containers per the RM, %d in the cluster", a.ID, held, want)
		}
		if a.Job == nil || a.Job.MapsTotal != 256 {
			t.Errorf("%s job: %+v", a.ID, a.Job)
		}
	}
	q, ok := snap.Queue("root.crypto")
	if !ok || !q.Leaf || q.ByPartition["gpu"].Capacity != 50 {
		t.Fatalf("queue crypto: %+v", q)
	}
	conf, err := c.SchedulerConf(ctx)
	if err != nil || conf["yarn.scheduler.capacity.root.queues"] != "crypto,sort" {
		t.Fatalf("scheduler-conf: %v %v", err, conf["yarn.scheduler.capacity.root.queues"])
	}
	if !tc.RunUntilDone(2 * time.Hour) {
		t.Fatal("not done")
	}
	jobs, err := c.FinishedJobs(ctx, time.Time{})
	if err != nil || len(jobs) != 2 {
		t.Fatalf("finished jobs: %d %v", len(jobs), err)
	}
	maps := 0
	for _, a := range jobs[0].Job.Attempts {
		if a.Type == "MAP" && a.Succeeded() && a.HDFSBytesRead > 0 {
			maps++
		}
	}
	if maps != 256 || len(jobs[0].Tags) == 0 {
		t.Fatalf("JobHistory attempts with bytes: %d, tags %v", maps, jobs[0].Tags)
	}
}
