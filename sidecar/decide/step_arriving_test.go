package decide

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Goal jobs arriving are sized by their class's typical run and claim the
// fewest containers that meet their goal (Polo's class 2, digest 002 §1.3).
func TestArrivingClaims(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	join := deadline.PhaseModel{Map: deadline.LogNormal{Mu: math.Log(67), Sigma: 0.03}, Reduce: deadline.LogNormal{Mu: math.Log(20), Sigma: 0.03},
		Shuffle1: deadline.LogNormal{Mu: math.Log(10), Sigma: 0.03}, Shuffle2: deadline.LogNormal{Mu: math.Log(10), Sigma: 0.03}, HasReduce: true, RunMaps: 60, RunReduces: 2}
	unsized := join
	unsized.RunMaps = 0
	models := map[string]deadline.PhaseModel{"join": join, "unsized": unsized}
	classOf := func(a cluster.App) string { c, _ := a.Tag("jobclass"); return c }
	app := func(name string, state cluster.AppState, class, goal string, job bool) cluster.App {
		a := cluster.App{ID: "app_" + name, Name: name, Queue: "root." + name, State: state, StartedTime: t0, Tags: []string{"jobclass=" + class}}
		if goal != "" {
			a.Tags = append(a.Tags, "deadline=+"+goal)
		}
		if job {
			a.Job = &cluster.Job{MapsTotal: 60}
		}
		return a
	}
	for _, tc := range []struct {
		name string
		apps []cluster.App
		acc  []cluster.App
		want map[string]int // job → containers claimed
	}{
		{"accepted goal job claims its one wave", nil, []cluster.App{app("j4", cluster.AppAccepted, "join", "150s", false)}, map[string]int{"j4": 60}},
		{"a laxer goal claims fewer containers (three waves of 20)", nil, []cluster.App{app("j4", cluster.AppAccepted, "join", "240s", false)}, map[string]int{"j4": 20}},
		{"running without a job view is still arriving", []cluster.App{app("j4", cluster.AppRunning, "join", "150s", false)}, nil, map[string]int{"j4": 60}},
		{"running with a job view is the report's", []cluster.App{app("j4", cluster.AppRunning, "join", "150s", true)}, nil, map[string]int{}},
		{"goal shorter than one map: claims nothing", nil, []cluster.App{app("j4", cluster.AppAccepted, "join", "60s", false)}, map[string]int{}},
		{"no goal, no model, no typical size: nothing", nil, []cluster.App{app("a", cluster.AppAccepted, "join", "", false),
			app("b", cluster.AppAccepted, "sort", "150s", false), app("c", cluster.AppAccepted, "unsized", "150s", false)}, map[string]int{}},
	} {
		snap := cluster.Snapshot{Time: t0, Apps: tc.apps, Accepted: tc.acc}
		got := map[string]int{}
		for _, c := range arrivingClaims(snap, models, classOf, nil, func(string) int { return 120 }, 0.9, 200) {
			got[c.Job] = c.Needed
			if !c.AtRisk || c.Late || !c.Deadline.After(t0) {
				t.Errorf("%s: claim %+v: want urgent, not late, due after now", tc.name, c)
			}
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: claims %v, want %v", tc.name, got, tc.want)
			continue
		}
		for j, n := range tc.want {
			// The Monte-Carlo may round a wave either way by one container.
			if d := got[j] - n; d < -1 || d > 1 {
				t.Errorf("%s: %s claims %d, want %d±1", tc.name, j, got[j], n)
			}
		}
	}
}

// Arriving claims are ordered like the report's: earliest deadline first.
func TestArrivingClaimsOrder(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	m := deadline.PhaseModel{Map: deadline.LogNormal{Mu: math.Log(10), Sigma: 0.01}, RunMaps: 4}
	apps := []cluster.App{
		{Name: "later", Queue: "root.a", State: cluster.AppAccepted, StartedTime: t0, Tags: []string{"jobclass=c", "deadline=+600s"}},
		{Name: "sooner", Queue: "root.b", State: cluster.AppAccepted, StartedTime: t0, Tags: []string{"jobclass=c", "deadline=+100s"}},
	}
	got := arrivingClaims(cluster.Snapshot{Time: t0, Accepted: apps}, map[string]deadline.PhaseModel{"c": m},
		func(cluster.App) string { return "c" }, nil, func(string) int { return 10 }, 0.9, 100)
	var names []string
	for _, c := range got {
		names = append(names, c.Job)
	}
	if !slices.Equal(names, []string{"sooner", "later"}) {
		t.Errorf("order %v, want sooner, later", names)
	}
}

// Arriving claims are made only when the RM preempts and preemption on
// purpose is allowed (the step's doc: without preemption they cost
// hetero-100-tight goals; in the safe mode the guard's budget holds).
func TestArrivingGoalStepOnlyWithPreemption(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	m := deadline.PhaseModel{Map: deadline.LogNormal{Mu: math.Log(10), Sigma: 0.01}, RunMaps: 4}
	tree := mustTree(t, schedconf.Conf{pre + "root.queues": "a", pre + "root.a.capacity": "100"})
	for _, tc := range []struct {
		name    string
		guard   *PreemptionGuard
		claimed bool
	}{
		{"no guard", nil, false},
		{"preemption off", &PreemptionGuard{Config: PreemptionConfig{Enabled: "off"}}, false},
		{"preemption on, safe mode", &PreemptionGuard{Config: PreemptionConfig{Enabled: "on"}}, false},
		{"preemption on, on purpose", &PreemptionGuard{Config: PreemptionConfig{Enabled: "on", OnPurpose: true}}, true},
	} {
		s := &decideState{Tree: tree, Parts: []progress.PartitionSlots{{Name: "", Slots: map[string]int64{"t": 10}}},
			ClassOf: func(cluster.App) string { return "c" },
			Snap:    cluster.Snapshot{Time: t0, Accepted: []cluster.App{{Name: "j", Queue: "root.a", State: cluster.AppAccepted, StartedTime: t0, Tags: []string{"deadline=+100s"}}}}}
		st := arrivingGoalStep{Guard: tc.guard, Models: func() map[string]deadline.PhaseModel { return map[string]deadline.PhaseModel{"c": m} }}
		if err := st.Run(s); err != nil {
			t.Fatal(err)
		}
		if got := len(s.Arriving) > 0; got != tc.claimed {
			t.Errorf("%s: claimed %v (%+v), want %v", tc.name, got, s.Arriving, tc.claimed)
		}
	}
}
