package sidecar

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/learn"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

func cycleAt(t0 time.Time, n int, gpu float64, jobs []JobStatus, plan *plan.Plan, res act.Result) CycleReport {
	return CycleReport{Cycle: int64(n), Snapshot: cluster.Snapshot{Time: t0.Add(time.Duration(n) * 30 * time.Second), RM: "rm"},
		Decision: Decision{Jobs: jobs, Queues: []QueueStatus{
			{Queue: "root.crypto", Partition: "", Capacity: 50, AbsCapacity: 50, AbsUsed: 10},
			{Queue: "root.crypto", Partition: "gpu", Capacity: gpu, AbsCapacity: gpu, AbsUsed: 40}}},
		Plan: plan, Outcome: act.Outcome{Result: res}}
}

// The admin's guarantee is the first value seen and stays while the
// sidecar moves the queue; shares sum the queue's jobs; applied plans count
// per hour; an idle cycle records no jobs but keeps LastRunning.
func TestRecordCycle(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 59, 0, 0, time.UTC)
	b := &StatusBoard{}
	jobs := []JobStatus{{AppID: "a1", Queue: "root.crypto", PS: 0.3, FairShare: 0.25}, {AppID: "a2", Queue: "root.crypto", PS: 0.2, FairShare: 0.25}}
	pl := &plan.Plan{Changes: []plan.Change{{Queue: "root.crypto", Property: "accessible-node-labels.gpu.capacity", From: "25", To: "50"}}}
	RecordCycle(b, cycleAt(t0, 0, 25, jobs, pl, act.ResultApplied))
	RecordCycle(b, cycleAt(t0, 1, 50, jobs, &plan.Plan{Changes: []plan.Change{{Queue: "root.crypto", Property: "accessible-node-labels.gpu.capacity", From: "50", To: "75"}}}, act.ResultApplied))
	idle := cycleAt(t0, 4, 75, nil, &plan.Plan{}, act.ResultNoChange)
	idle.Snapshot.Errors = []cluster.LoadError{{What: "app application_1_0002 tasks", Err: "timeout"}}
	idle.Err = errors.New("boom")
	RecordCycle(b, idle)

	st := b.Get()
	if st.Mode != act.ModeApply || st.Cycle != 4 || len(st.History) != 3 || len(st.Plans) != 2 {
		t.Fatalf("mode %q cycle %d history %d plans %d", st.Mode, st.Cycle, len(st.History), len(st.Plans))
	}
	if got := st.Admin[AdminKey("root.crypto", "gpu")]; got != 25 {
		t.Errorf("admin gpu = %v, want 25 (the first value seen)", got)
	}
	for _, q := range st.Queues {
		if q.Partition == "gpu" && (q.AdminCapacity == nil || *q.AdminCapacity != 25 || q.Capacity != 75) {
			t.Errorf("queue status on gpu = %+v, want admin 25, now 75", q)
		}
	}
	if sh := st.History[0].Shares; len(sh) != 1 || sh[0].Jobs != 2 || sh[0].PS != 0.5 || sh[0].Fair != 0.5 {
		t.Errorf("shares = %+v, want crypto 2 jobs, PS 0.5, fair 0.5", sh)
	}
	if len(st.History[2].Shares) != 0 || len(st.Jobs) != 0 || !st.LastRunning.Equal(t0.Add(30*time.Second)) {
		t.Errorf("idle cycle: shares %v jobs %d last running %v", st.History[2].Shares, len(st.Jobs), st.LastRunning)
	}
	// 00:59:00 is in hour 00, 00:59:30 too: both applied plans count there.
	if len(st.Mutations) != 1 || st.Mutations[0].Count != 2 || st.Mutations[0].Hour.Hour() != 0 {
		t.Errorf("mutations per hour = %+v", st.Mutations)
	}
	w := strings.Join(st.Warnings, "\n")
	if !strings.Contains(w, "application_1_0002 tasks (timeout)") || !strings.Contains(w, "last cycle failed: boom") {
		t.Errorf("warnings = %q", w)
	}
}

// SeedAdmin: the audit log's first "before" of each capacity wins over
// what the RM shows after the sidecar's earlier changes.
func TestSeedAdmin(t *testing.T) {
	b := &StatusBoard{}
	k := "yarn.scheduler.capacity.root.ml.accessible-node-labels.gpu.capacity"
	SeedAdmin(b, []act.AuditEntry{
		{Result: act.ResultApplied, Time: time.Unix(0, 0), Before: map[string]string{k: "25", "yarn.scheduler.capacity.root.ml.capacity": "30",
			"yarn.scheduler.capacity.root.ml.maximum-capacity": "100", "yarn.scheduler.capacity.rack-locality-full-reset": ""}, After: map[string]string{k: "40"}},
		{Result: act.ResultApplied, Time: time.Unix(60, 0), Before: map[string]string{k: "40"}, After: map[string]string{k: "55"}},
	})
	RecordCycle(b, CycleReport{Snapshot: cluster.Snapshot{Time: time.Unix(120, 0)}, Decision: Decision{Queues: []QueueStatus{{Queue: "root.ml", Partition: "gpu", Capacity: 55}}}})
	st := b.Get()
	want := map[string]float64{AdminKey("root.ml", "gpu"): 25, AdminKey("root.ml", ""): 30}
	if len(st.Admin) != len(want) {
		t.Errorf("admin = %v, want %v", st.Admin, want)
	}
	for k, v := range want {
		if st.Admin[k] != v {
			t.Errorf("admin[%s] = %v, want %v", k, st.Admin[k], v)
		}
	}
	if st.Queues[0].AdminCapacity == nil || *st.Queues[0].AdminCapacity != 25 {
		t.Errorf("queue status = %+v, want admin 25 from the audit log", st.Queues[0])
	}
	if len(st.Mutations) != 1 || st.Mutations[0].Count != 2 {
		t.Errorf("mutations from the audit log = %+v, want 2 in one hour", st.Mutations)
	}
}

func TestCapacityKeys(t *testing.T) {
	for _, c := range []struct {
		key, queue, part string
		ok               bool
	}{
		{"yarn.scheduler.capacity.root.a.capacity", "root.a", "", true},
		{"yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.capacity", "root.a", "gpu", true},
		{"yarn.scheduler.capacity.root.a.maximum-capacity", "", "", false},
		{"yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.maximum-capacity", "", "", false},
		{"yarn.scheduler.capacity.root.a.default-node-label-expression", "", "", false},
		{"yarn.scheduler.capacity.rack-locality-full-reset", "", "", false},
	} {
		q, p, ok := splitCapacityKey(c.key)
		if ok != c.ok || (ok && (q != c.queue || p != c.part)) {
			t.Errorf("splitCapacityKey(%s) = %q %q %v", c.key, q, p, ok)
		}
	}
}

func TestTrackJobsFinished(t *testing.T) {
	t0 := time.Unix(0, 0)
	seen, fin := trackJobs(nil, nil, []JobStatus{{AppID: "a"}, {AppID: "b"}}, t0, nil)
	seen, fin = trackJobs(seen, fin, []JobStatus{{AppID: "b"}}, t0.Add(30*time.Second), nil)
	seen, fin = trackJobs(seen, fin, nil, t0.Add(time.Minute), nil)
	if len(seen) != 0 || len(fin) != 2 {
		t.Fatalf("seen %v finished %v", seen, fin)
	}
	if fin[0].AppID != "a" || !fin[0].LastSeen.Equal(t0) || fin[1].AppID != "b" || !fin[1].LastSeen.Equal(t0.Add(30*time.Second)) || !fin[1].FirstSeen.Equal(t0) {
		t.Errorf("finished = %+v", fin)
	}
}

// A job seen running in one cycle only is timed by the RM's startedTime
// and the finishedTime the learner read, not by the cycles (which gave it
// 0m: issue 35), whether the learner reads its finish before or after the
// cycle that no longer sees it running.
func TestRecordTimesJobsByYARN(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		readAt    int // the cycle whose learner reads the finish
		wantStart time.Time
	}{
		{"finish read once gone", 2, t0.Add(-9 * time.Minute)},
		{"finish read while still seen", 1, t0.Add(-9 * time.Minute)},
		{"finish read two cycles later", 3, t0.Add(-9 * time.Minute)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &StatusBoard{}
			started := t0.Add(-9 * time.Minute)
			finish := t0.Add(40 * time.Second)
			for n := 1; n <= 3; n++ {
				var jobs []JobStatus
				rep := cycleAt(t0, n, 25, nil, nil, act.ResultNoChange)
				if n == 1 {
					jobs = []JobStatus{{AppID: "a1", Queue: "root.crypto", Class: "sort"}}
					rep.Snapshot.Apps = []cluster.App{{ID: "a1", StartedTime: started}}
				}
				rep.Decision.Jobs = jobs
				if n == tc.readAt {
					rep.Finished = []learn.FinishedJob{{AppID: "a1", Started: started, Finished: finish}}
				}
				RecordCycle(b, rep)
			}
			st := b.Get()
			if len(st.Finished) != 1 {
				t.Fatalf("finished %+v, want a1", st.Finished)
			}
			j := st.Finished[0]
			if !j.FirstSeen.Equal(j.LastSeen) {
				t.Fatalf("the test wants a job seen in one cycle: %+v", j)
			}
			s, f := j.Span()
			if !s.Equal(tc.wantStart) || !f.Equal(finish) {
				t.Errorf("span %s → %s, want %s → %s (the RM's times)", s, f, tc.wantStart, finish)
			}
		})
	}
}

func TestMarkPinned(t *testing.T) {
	b := &StatusBoard{}
	RecordCycle(b, cycleAt(time.Unix(0, 0), 1, 25, nil, nil, act.ResultNoChange))
	before := b.Get()
	MarkPinned(b, map[string]QueueConfig{"root.crypto": {Pinned: true}, "root.other": {Weight: 2}})
	st := b.Get()
	for _, q := range st.Queues {
		if !q.Pinned {
			t.Errorf("queue %s/%s not marked pinned", q.Queue, q.Partition)
		}
	}
	if len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "root.crypto is pinned") {
		t.Errorf("warnings = %q, want one for root.crypto", st.Warnings)
	}
	if before.Queues[0].Pinned {
		t.Error("MarkPinned changed a status a reader already holds")
	}
}

// The header's validation path is the last plan's, kept through cycles
// that validated nothing.
func TestRecordValidationPath(t *testing.T) {
	b := &StatusBoard{}
	rep := cycleAt(time.Unix(0, 0), 1, 25, nil, &plan.Plan{Changes: []plan.Change{{Queue: "root.crypto", Property: "capacity", From: "50", To: "40"}}}, act.ResultApplied)
	rep.Outcome.Validation = act.ValidationLocalOnly
	RecordCycle(b, rep)
	RecordCycle(b, cycleAt(time.Unix(0, 0), 2, 25, nil, nil, act.ResultNoChange))
	if got := b.Get().ValidationPath; got != "local-only" {
		t.Errorf("validation path = %q, want local-only", got)
	}
}

// Dry runs change nothing: neither a dry-run cycle's plan nor a dry-run
// audit record counts as a mutation (issue 35: the CLI report's dry-run
// cycles showed as mutations per hour).
func TestDryRunsAreNotMutations(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	k := "yarn.scheduler.capacity.root.crypto.capacity"
	b := &StatusBoard{}
	SeedAdmin(b, []act.AuditEntry{
		{Result: act.ResultDryRun, Time: t0, Before: map[string]string{k: "50"}, After: map[string]string{k: "60"}},
		{Result: act.ResultApplied, Time: t0.Add(time.Minute), Before: map[string]string{k: "50"}, After: map[string]string{k: "55"}},
	})
	change := &plan.Plan{Changes: []plan.Change{{Queue: "root.crypto", Property: "capacity", From: "55", To: "65"}}}
	RecordCycle(b, cycleAt(t0, 4, 25, nil, change, act.ResultDryRun))
	RecordCycle(b, cycleAt(t0, 5, 25, nil, change, act.ResultDryRun))
	st := b.Get()
	if len(st.Mutations) != 1 || st.Mutations[0].Count != 1 {
		t.Errorf("mutations per hour %+v, want the one applied audit record only", st.Mutations)
	}
	if st.DryRunPlans != 2 {
		t.Errorf("dry-run plans %d, want 2", st.DryRunPlans)
	}
}

// The status keeps the calibration lend's last write through cycles
// without one.
func TestRecordLend(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := &StatusBoard{}
	lent := cycleAt(t0, 0, 25, nil, &plan.Plan{}, act.ResultNoChange)
	lent.Lend = &LendReport{Change: act.LabelChange{Lend: true, Nodes: map[string]string{"gpu-1:8041": ""}}, Result: act.ResultApplied}
	RecordCycle(b, lent)
	RecordCycle(b, cycleAt(t0, 1, 25, nil, &plan.Plan{}, act.ResultNoChange))
	if st := b.Get(); st.Lend == nil || st.Lend.Change.Nodes["gpu-1:8041"] != "" || st.Lend.Result != act.ResultApplied {
		t.Fatalf("status lend %+v, want gpu-1 to the default partition, applied", st.Lend)
	}
}
