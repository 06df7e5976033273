package sidecar

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
)

func TestDeadlineClaims(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	at := func(s int) *time.Time { d := t0.Add(time.Duration(s) * time.Second); return &d }
	for _, tc := range []struct {
		name string
		jobs []deadline.JobReport
		want []string // job names, in claim order
	}{
		{"no jobs", nil, nil},
		{"earliest deadline first", []deadline.JobReport{
			{Name: "late", Queue: "a", Deadline: at(600), Needed: 3, Verdict: deadline.OnTrack},
			{Name: "soon", Queue: "b", Deadline: at(150), Needed: 5, Verdict: deadline.AtRisk},
		}, []string{"soon", "late"}},
		{"ties by job name", []deadline.JobReport{
			{Name: "j5", Queue: "a", Deadline: at(150), Needed: 1, Verdict: deadline.AtRisk},
			{Name: "j4", Queue: "b", Deadline: at(150), Needed: 1, Verdict: deadline.AtRisk},
		}, []string{"j4", "j5"}},
		{"no goal, no need, cannot meet and unknown claim nothing", []deadline.JobReport{
			{Name: "nogoal", Queue: "a", Needed: 4, Verdict: deadline.NoGoal},
			{Name: "noneed", Queue: "a", Deadline: at(100), Needed: 0, Verdict: deadline.OnTrack},
			{Name: "hopeless", Queue: "a", Deadline: at(100), Needed: 9, Verdict: deadline.CannotMeet},
			{Name: "unknown", Queue: "a", Deadline: at(100), Needed: 2, Verdict: "unknown (no progress yet)"},
			{Name: "ok", Queue: "a", Deadline: at(100), Needed: 2, Verdict: deadline.OnTrack},
		}, []string{"ok"}},
	} {
		got := deadlineClaims([]deadline.QueueReport{{Jobs: tc.jobs}})
		var names []string
		for _, c := range got {
			names = append(names, c.Job)
		}
		if !slices.Equal(names, tc.want) {
			t.Errorf("%s: claims %v, want %v", tc.name, names, tc.want)
		}
	}
}

func TestReserveEDF(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	claim := func(q, job string, s, n int) deadlineClaim {
		return deadlineClaim{Queue: q, Job: job, Deadline: t0.Add(time.Duration(s) * time.Second), Needed: n}
	}
	home := map[string]string{"root.a": "", "root.b": "", "root.g": "gpu"}
	for _, tc := range []struct {
		name   string
		claims []deadlineClaim // already in EDF order
		totals map[string]float64
		want   map[string]int
	}{
		{"all fit", []deadlineClaim{claim("root.a", "j1", 100, 10), claim("root.b", "j2", 200, 20)},
			map[string]float64{"": 100}, map[string]int{"root.a": 10, "root.b": 20}},
		{"earlier deadline served first, later one gets the rest", []deadlineClaim{claim("root.b", "j2", 100, 70), claim("root.a", "j1", 200, 50)},
			map[string]float64{"": 100}, map[string]int{"root.b": 70, "root.a": 30}},
		{"partition exhausted: later claim gets nothing", []deadlineClaim{claim("root.a", "j1", 100, 100), claim("root.b", "j2", 200, 5)},
			map[string]float64{"": 100}, map[string]int{"root.a": 100}},
		{"two jobs of one queue add up", []deadlineClaim{claim("root.a", "j1", 100, 4), claim("root.a", "j2", 200, 6)},
			map[string]float64{"": 100}, map[string]int{"root.a": 10}},
		{"partitions are separate pools", []deadlineClaim{claim("root.a", "j1", 100, 100), claim("root.g", "j2", 200, 8)},
			map[string]float64{"": 100, "gpu": 10}, map[string]int{"root.a": 100, "root.g": 8}},
		{"queue the plan leaves alone claims nothing", []deadlineClaim{claim("root.x", "j1", 100, 5), claim("root.a", "j2", 200, 5)},
			map[string]float64{"": 100}, map[string]int{"root.a": 5}},
	} {
		got := reserveEDF(tc.claims, home, tc.totals)
		if !maps.Equal(got, tc.want) {
			t.Errorf("%s: held %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRaisesUrgent(t *testing.T) {
	urgent := map[string]string{"root.a": "job j4 at risk"}
	for _, tc := range []struct {
		name    string
		urgent  map[string]string
		changes []Change
		want    bool
	}{
		{"raise of an urgent queue", urgent, []Change{{Queue: "root.a", Property: "capacity", From: "20", To: "45"}}, true},
		{"raise of an urgent queue in a label", urgent, []Change{{Queue: "root.a", Partition: "gpu", Property: "accessible-node-labels.gpu.capacity", From: "1w", To: "2.5w"}}, true},
		{"cut of an urgent queue", urgent, []Change{{Queue: "root.a", Property: "capacity", From: "45", To: "20"}}, false},
		{"raise of another queue", urgent, []Change{{Queue: "root.b", Property: "capacity", From: "20", To: "45"}}, false},
		{"raised ceiling reserves nothing", urgent, []Change{{Queue: "root.a", Property: "maximum-capacity", From: "50", To: "100"}}, false},
		{"absolute resources are not compared", urgent, []Change{{Queue: "root.a", Property: "capacity", From: "[memory=1024]", To: "[memory=4096]"}}, false},
		{"no urgent queues", nil, []Change{{Queue: "root.a", Property: "capacity", From: "20", To: "45"}}, false},
	} {
		if got := raisesUrgent(&Plan{Urgent: tc.urgent, Changes: tc.changes}); got != tc.want {
			t.Errorf("%s: raisesUrgent %v, want %v", tc.name, got, tc.want)
		}
	}
	if raisesUrgent(nil) {
		t.Error("nil plan is urgent")
	}
}

// TestRateLimitUrgentException: an urgent raise passes the least interval
// and the gain threshold, never the hourly cap; a plan that is not urgent
// is held as before.
func TestRateLimitUrgentException(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	raise := []Change{{Queue: "root.a", Property: "capacity", From: "20", To: "45"}}
	flat := map[string]float64{"sum_ps": 100, "sum_ps_now": 100} // 0% gain
	for _, tc := range []struct {
		name   string
		past   []time.Duration // mutations this long before now
		urgent bool
		allow  bool
		reason string // part of the reason when held
	}{
		{"not urgent, inside the interval", []time.Duration{30 * time.Second}, false, false, "min_apply_interval"},
		{"urgent, inside the interval", []time.Duration{30 * time.Second}, true, true, ""},
		{"not urgent, 0% gain", nil, false, false, "min_gain_percent"},
		{"urgent, 0% gain", nil, true, true, ""},
		{"urgent, hourly cap reached", []time.Duration{50 * time.Minute, 40 * time.Minute, 30 * time.Minute}, true, false, "max_mutations_per_hour"},
	} {
		r := &RateLimit{MinInterval: 2 * time.Minute, MaxPerHour: 3, MinGainPercent: 2}
		for _, d := range tc.past {
			r.Record(t0.Add(-d))
		}
		p := &Plan{Changes: raise, Predicted: flat}
		if tc.urgent {
			p.Urgent = map[string]string{"root.a": "job j4 at risk"}
		}
		ok, why := r.Allow(t0, p)
		if ok != tc.allow || !strings.Contains(why, tc.reason) {
			t.Errorf("%s: Allow = %v %q, want %v (reason containing %q)", tc.name, ok, why, tc.allow, tc.reason)
		}
	}
}
