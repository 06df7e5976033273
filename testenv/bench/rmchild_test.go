package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"
)

// gone reports whether no process pid exists any more (reaped or never was).
func gone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	return p.Signal(syscall.Signal(0)) != nil
}

// The scale rows' mini RM runs in a child process: it must serve the RM
// API, meter only the RM's requests, advance virtual time on request, and
// be gone after Stop.
func TestRMProcessServesMetersAdvancesAndStops(t *testing.T) {
	rm, err := startRMProcess(context.Background(), "hetero-100", 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer rm.Stop()
	pid := rm.Pid()
	if pid == os.Getpid() || gone(pid) {
		t.Fatalf("child pid %d: want a live process other than this one (%d)", pid, os.Getpid())
	}
	r0, err := rm.Meter()
	if err != nil {
		t.Fatal(err)
	}
	if r0.Requests != 0 || r0.Now.IsZero() {
		t.Fatalf("fresh meter %+v: want 0 requests and the virtual time", r0)
	}

	var metrics struct {
		ClusterMetrics struct{ TotalNodes, ActiveNodes int } `json:"clusterMetrics"`
	}
	meas, got, err := rm.metered(func() error {
		resp, err := http.Get(rm.URL + "/ws/v1/cluster/metrics")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		return json.NewDecoder(resp.Body).Decode(&metrics)
	})
	if err != nil {
		t.Fatal(err)
	}
	if metrics.ClusterMetrics.TotalNodes != 100 || metrics.ClusterMetrics.ActiveNodes != 100 {
		t.Fatalf("metrics %+v: want 100 nodes, all active", metrics.ClusterMetrics)
	}
	// One metered request, whatever the control requests around it.
	if got.Requests != 1 || got.Bytes <= 0 || got.Busy <= 0 || got.Busy > meas.Wall {
		t.Fatalf("meter over one GET (wall %s): %+v; want 1 request, some bytes, 0 < busy ≤ wall", meas.Wall, got)
	}
	if k := got.Kinds["metrics"]; len(got.Kinds) != 1 || k.Requests != 1 || k.Bytes != got.Bytes || k.Busy != got.Busy {
		t.Fatalf("meter by kind over one GET of metrics: %+v; want all of it under metrics", got.Kinds)
	}
	if cum, err := rm.Meter(); err != nil || cum.Requests != 1 {
		t.Fatalf("cumulative meter %+v (%v): want 1 request; control requests are not metered", cum, err)
	}

	adv, err := rm.Advance(30 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if want := r0.Now.Add(30 * time.Second); !adv.Now.Equal(want) {
		t.Fatalf("advanced to %s, want %s", adv.Now, want)
	}
	if _, err := rm.Advance(-time.Second); err == nil {
		t.Fatal("advancing by -1s: want an error")
	}
	if r, err := rm.Reset(); err != nil || r.Requests != 0 || r.Bytes != 0 || r.Busy != 0 {
		t.Fatalf("after reset %+v (%v): want a zero meter", r, err)
	}

	rm.Stop()
	if !gone(pid) {
		t.Fatalf("child %d still exists after Stop", pid)
	}
	if _, err := http.Get(rm.URL + "/ws/v1/cluster/metrics"); err == nil {
		t.Fatal("the stopped child still answers")
	}
}

// The child must not outlive a cancelled bench.
func TestRMProcessDiesWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	rm, err := startRMProcess(ctx, "hetero-100", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rm.Stop()
	cancel()
	select {
	case <-rm.waited:
	case <-time.After(10 * time.Second):
		t.Fatal("child still running 10 s after its context ended")
	}
	if !gone(rm.Pid()) {
		t.Fatalf("child %d still exists after its context ended", rm.Pid())
	}
}

// A parent that dies without stopping the child closes the child's stdin:
// the child must exit on its own, cleanly.
func TestRMProcessExitsWhenItsStdinCloses(t *testing.T) {
	rm, err := startRMProcess(context.Background(), "hetero-100", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rm.Stop()
	rm.stdin.Close()
	select {
	case <-rm.waited:
	case <-time.After(10 * time.Second):
		t.Fatal("child still running 10 s after its stdin closed")
	}
	if code := rm.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("child exited with %d (%s), want 0", code, rm.cmd.ProcessState)
	}
}

// Each metered request is counted under one kind, so a row can say which
// request costs what.
func TestRequestKind(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"/ws/v1/cluster/apps", "apps"},
		{"/ws/v1/cluster/apps/", "apps"},
		{"/ws/v1/cluster/apps/application_1_0001", "other"},
		{"/ws/v1/cluster/apps/application_1_0001/appattempts", "appattempts"},
		{"/ws/v1/cluster/apps/application_1_0001/appattempts/appattempt_1_0001_000001/containers", "containers"},
		{"/ws/v1/cluster/nodes", "nodes"},
		{"/ws/v1/cluster/nodes/host:8041", "other"},
		{"/ws/v1/cluster/scheduler", "scheduler"},
		{"/ws/v1/cluster/scheduler-conf/version", "scheduler-conf"},
		{"/ws/v1/cluster/metrics", "metrics"},
		{"/ws/v1/cluster/get-node-labels", "node labels"},
		{"/proxy/application_1_0001/ws/v1/mapreduce/jobs", "AM"},
		{"/ws/v1/history/mapreduce/jobs", "JobHistory"},
		{"/favicon.ico", "other"},
	} {
		if got := requestKind(tc.path); got != tc.want {
			t.Errorf("requestKind(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// A reading's difference keeps each kind's own difference and drops kinds
// without requests in between.
func TestRMReadingSubByKind(t *testing.T) {
	before := rmReading{Requests: 3, Kinds: map[string]kindReading{"apps": {Busy: 10, Requests: 1, Bytes: 100}, "nodes": {Busy: 5, Requests: 2, Bytes: 50}}}
	after := rmReading{Requests: 5, Kinds: map[string]kindReading{"apps": {Busy: 30, Requests: 3, Bytes: 400}, "nodes": {Busy: 5, Requests: 2, Bytes: 50}}}
	d := after.sub(before)
	if d.Requests != 2 || len(d.Kinds) != 1 || d.Kinds["apps"] != (kindReading{Busy: 20, Requests: 2, Bytes: 300}) {
		t.Fatalf("sub: %+v; want 2 requests, apps only: 2 requests, 300 bytes, busy 20ns", d)
	}
	if s := d.byKind(); s != "apps 2 req 0.0 MiB busy 0s" {
		t.Fatalf("byKind = %q", s)
	}
}
