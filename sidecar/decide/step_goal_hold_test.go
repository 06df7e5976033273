package decide

import (
	"maps"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
)

// A running goal job claims what it holds beyond its claim, so a cut does
// not make the RM kill its tasks.
func TestHoldClaims(t *testing.T) {
	goal := time.Unix(1_700_000_150, 0)
	for _, tc := range []struct {
		name string
		job  deadline.JobReport
		want map[string]int
	}{
		{"on track, last wave running: holds all but its need", deadline.JobReport{Name: "j4", Queue: "q", Deadline: &goal, Held: 60, Needed: 1, Verdict: deadline.OnTrack}, map[string]int{"j4": 59}},
		{"at risk, needs more than it holds: its need covers it", deadline.JobReport{Name: "j4", Queue: "q", Deadline: &goal, Held: 50, Needed: 60, Verdict: deadline.AtRisk}, map[string]int{}},
		{"cannot meet: above its queue's promise", deadline.JobReport{Name: "j4", Queue: "q", Deadline: &goal, Held: 30, Verdict: deadline.CannotMeet}, map[string]int{"j4": 6}},
		{"cannot meet, within its promise: nothing", deadline.JobReport{Name: "j4", Queue: "q", Deadline: &goal, Held: 20, Verdict: deadline.CannotMeet}, map[string]int{}},
		{"no goal: nothing", deadline.JobReport{Name: "j4", Queue: "q", Held: 60, Verdict: deadline.NoGoal}, map[string]int{}},
		{"unknown verdict: nothing", deadline.JobReport{Name: "j4", Queue: "q", Deadline: &goal, Held: 60, Verdict: "unknown (no progress yet)"}, map[string]int{}},
	} {
		got := map[string]int{}
		for _, c := range holdClaims([]deadline.QueueReport{{Queue: "q", Jobs: []deadline.JobReport{tc.job}}}, map[string]int{"q": 24}) {
			got[c.Job] = c.Needed
			if c.AtRisk || c.Late || !c.Deadline.Equal(goal) {
				t.Errorf("%s: claim %+v: want not urgent, not late, in the job's EDF turn", tc.name, c)
			}
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Without preemption a cut kills nothing: no hold claims.
func TestGoalHoldStepOnlyWithPreemption(t *testing.T) {
	goal := time.Unix(1_700_000_150, 0)
	reports := []deadline.QueueReport{{Queue: "q", Jobs: []deadline.JobReport{{Name: "j4", Queue: "q", Deadline: &goal, Held: 60, Needed: 1, Verdict: deadline.OnTrack}}}}
	for _, tc := range []struct {
		name  string
		guard *PreemptionGuard
		want  int
	}{
		{"no guard", nil, 0},
		{"preemption off", &PreemptionGuard{Config: PreemptionConfig{Enabled: "off"}}, 0},
		{"preemption on", &PreemptionGuard{Config: PreemptionConfig{Enabled: "on"}}, 1},
	} {
		s := &decideState{Deadlines: reports}
		if err := (goalHoldStep{Guard: tc.guard}).Run(s); err != nil {
			t.Fatal(err)
		}
		if len(s.Holding) != tc.want {
			t.Errorf("%s: %d hold claims, want %d", tc.name, len(s.Holding), tc.want)
		}
	}
}
