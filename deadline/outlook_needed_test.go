package deadline

import (
	"math"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Spark apps' "containers needed" and "cannot meet" (issue 36): the
// executors a goal needs, searched over the stages' tasks left, the task
// times and the executor's cores, bounded by the queue and by
// spark.dynamicAllocation.maxExecutors when known.
func TestSparkExecutorsNeeded(t *testing.T) {
	// One stage of 80 tasks of 60 s (no spread): E executors of 4 cores
	// take ceil(80/4E) waves of a minute.
	one := []OutlookStage{{Tasks: 80, Task: time.Minute}}
	two := []OutlookStage{{Tasks: 80, Task: time.Minute}, {Tasks: 8, Task: 30 * time.Second}}
	for _, tc := range []struct {
		name   string
		stages []OutlookStage
		cores  int
		maxEx  int
		left   time.Duration
		maxW   int
		held   int
		want   int
		verd   string
	}{
		{"10 waves fit 11 min on 2 executors: on track", one, 4, 0, 11 * time.Minute, 100, 2, 2, OnTrack},
		{"5 min: 4 executors (5 waves)", one, 4, 0, 5*time.Minute + time.Second, 100, 2, 4, AtRisk},
		{"2 min: 10 executors", one, 4, 0, 2*time.Minute + time.Second, 100, 2, 10, AtRisk},
		{"one wave is the floor: 30 s cannot be met", one, 4, 0, 30 * time.Second, 100, 2, 100, CannotMeet},
		{"2 min but the queue holds 6: cannot meet", one, 4, 0, 2*time.Minute + time.Second, 6, 2, 6, CannotMeet},
		{"2 min but maxExecutors 8: cannot meet", one, 4, 8, 2*time.Minute + time.Second, 100, 2, 8, CannotMeet},
		{"2 min, maxExecutors 20: 10", one, 4, 20, 2*time.Minute + time.Second, 100, 2, 10, AtRisk},
		{"stages in a chain: 2 waves + 1 for the second", two, 4, 0, 2*time.Minute + 31*time.Second, 100, 2, 10, AtRisk},
		{"2-core executors need twice as many", one, 2, 0, 2*time.Minute + time.Second, 100, 2, 20, AtRisk},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, sd, ok := StagesRemain(tc.stages, tc.held*tc.cores)
			if !ok {
				t.Fatal("StagesRemain not known")
			}
			o := Outlook{Remain: r, LogSpread: sd, Known: true, Tasks: 80, Stages: tc.stages, ExecutorCores: tc.cores, MaxExecutors: tc.maxEx}
			now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
			goal := now.Add(tc.left)
			jr := JobReport{Held: tc.held}
			outlookVerdict(&jr, o, now, &goal, 0.9, tc.maxW)
			if jr.Needed != tc.want || jr.Verdict != tc.verd || jr.NeededIsHeld {
				t.Errorf("needed %d %q (held %v), want %d %q", jr.Needed, jr.Verdict, jr.NeededIsHeld, tc.want, tc.verd)
			}
		})
	}
}

// StagesRemain is sparkobs.Predict's wave model: whole waves at the
// median, the last one's slowest task, running tasks half done.
func TestStagesRemain(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stages []OutlookStage
		slots  int
		want   time.Duration
		ok     bool
	}{
		{"3 waves", []OutlookStage{{Tasks: 12, Task: 10 * time.Second}}, 4, 30 * time.Second, true},
		{"running tasks half done", []OutlookStage{{Tasks: 12, Active: 4, Task: 10 * time.Second}}, 4, 25 * time.Second, true},
		// The last wave: its 2 tasks run on 2 of 4 slots, half done.
		{"last wave running, fewer tasks than slots", []OutlookStage{{Tasks: 2, Active: 2, Task: 10 * time.Second}}, 4, 5 * time.Second, true},
		{"no slot", []OutlookStage{{Tasks: 12, Task: 10 * time.Second}}, 0, 0, false},
		{"task time unknown", []OutlookStage{{Tasks: 12}}, 4, 0, false},
		{"done stages count nothing", []OutlookStage{{Tasks: 0}, {Tasks: 4, Task: time.Second}}, 4, time.Second, true},
	} {
		got, _, ok := StagesRemain(tc.stages, tc.slots)
		if ok != tc.ok || math.Abs(got.Seconds()-tc.want.Seconds()) > 1e-6 {
			t.Errorf("%s: %v %v, want %v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	// Through Report: the queue's maximum bounds the search.
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	st := []OutlookStage{{Tasks: 80, Task: time.Minute}}
	r, sd, _ := StagesRemain(st, 8)
	snap := cluster.Snapshot{Time: now, Apps: []cluster.App{{ID: "a", Queue: "root.q", Type: "SPARK", State: cluster.AppRunning,
		StartedTime: now, RunningContainers: 3, Tags: []string{"deadline=+2m1s"}}}}
	for _, qm := range []struct {
		max  int
		want string
	}{{6, CannotMeet}, {40, AtRisk}} {
		rep := Report(snap, nil, ReportOptions{Confidence: 0.9, QueueMax: func(string) int { return qm.max },
			Outlooks: map[string]Outlook{"a": {Remain: r, LogSpread: sd, Known: true, Stages: st, ExecutorCores: 4}}})
		j := rep[0].Jobs[0]
		if j.Verdict != qm.want {
			t.Errorf("queue max %d: %q needed %d, want %q", qm.max, j.Verdict, j.Needed, qm.want)
		}
	}
}
