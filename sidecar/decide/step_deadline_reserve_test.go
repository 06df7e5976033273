package decide

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
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
		{"no goal, no need and unknown claim nothing; cannot meet claims the admin's guarantee", []deadline.JobReport{
			{Name: "nogoal", Queue: "a", Needed: 4, Verdict: deadline.NoGoal},
			{Name: "noneed", Queue: "a", Deadline: at(100), Needed: 0, Verdict: deadline.OnTrack},
			{Name: "hopeless", Queue: "a", Deadline: at(100), Needed: 9, Verdict: deadline.CannotMeet},
			{Name: "unknown", Queue: "a", Deadline: at(100), Needed: 2, Verdict: "unknown (no progress yet)"},
			{Name: "ok", Queue: "a", Deadline: at(100), Needed: 2, Verdict: deadline.OnTrack},
		}, []string{"hopeless", "ok"}},
	} {
		got := deadlineClaims([]deadline.QueueReport{{Jobs: tc.jobs}}, map[string]int{"a": 24})
		var names []string
		for _, c := range got {
			names = append(names, c.Job)
			if c.Job == "hopeless" && (c.Needed != 24 || c.AtRisk) {
				t.Errorf("%s: a job that cannot meet its goal claims %d (at risk %v), want its queue's 24 promised, not at risk", tc.name, c.Needed, c.AtRisk)
			}
		}
		if !slices.Equal(names, tc.want) {
			t.Errorf("%s: claims %v, want %v", tc.name, names, tc.want)
		}
	}
}

// Polo's rule 1: a late job claims its last wave when it fits its queue.
func TestLateClaim(t *testing.T) {
	for _, tc := range []struct {
		name                          string
		remaining, queueMax, promised int
		want                          int
	}{
		// polo-a's J4 at 1560 s: 53 running, 7 maps and 2 reduces to go, queue max 120.
		{"last wave fits the queue", 62, 120, 24, 62},
		{"exactly the queue's maximum", 120, 120, 24, 120},
		{"fewer tasks left than the promise: the wave only", 2, 120, 24, 2},
		// J1 with 1,500 maps left: no wave of it fits, it keeps its share.
		{"too big for the queue", 1500, 120, 24, 24},
		{"remaining unknown", 0, 120, 24, 24},
		{"queue maximum unknown", 62, 0, 24, 24},
	} {
		if got := lateClaim(tc.remaining, tc.queueMax, tc.promised); got != tc.want {
			t.Errorf("%s: lateClaim(%d, %d, %d) = %d, want %d", tc.name, tc.remaining, tc.queueMax, tc.promised, got, tc.want)
		}
	}
	// Through deadlineClaims (the queue report's maximum is the bound):
	// polo-a's J4 at 1560 s claims its queue's 24 in its EDF turn, the
	// other 38 of its wave of 62 after a later job that can still meet
	// its goal.
	t0 := time.Unix(1_700_000_000, 0)
	d, j2 := t0.Add(150*time.Second), t0.Add(3000*time.Second)
	got := deadlineClaims([]deadline.QueueReport{
		{Queue: "a", MaxAllowed: 120, Jobs: []deadline.JobReport{{Name: "J4", Queue: "a", Deadline: &d, Needed: 128, Remaining: 62, Verdict: deadline.CannotMeet}}},
		{Queue: "b", MaxAllowed: 120, Jobs: []deadline.JobReport{{Name: "J2", Queue: "b", Deadline: &j2, Needed: 45, Verdict: deadline.AtRisk}}},
	}, map[string]int{"a": 24, "b": 24})
	want := []deadlineClaim{
		{Queue: "a", Job: "J4", Deadline: d, Needed: 24},
		{Queue: "b", Job: "J2", Deadline: j2, Needed: 45, AtRisk: true},
		{Queue: "a", Job: "J4", Deadline: d, Needed: 38, Late: true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("late J4 beside J2: claims %+v, want %+v", got, want)
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
		got := reserveWithin(tc.claims, home, tc.totals, nil)
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
		changes []plan.Change
		want    bool
	}{
		{"raise of an urgent queue", urgent, []plan.Change{{Queue: "root.a", Property: "capacity", From: "20", To: "45"}}, true},
		{"raise of an urgent queue in a label", urgent, []plan.Change{{Queue: "root.a", Partition: "gpu", Property: "accessible-node-labels.gpu.capacity", From: "1w", To: "2.5w"}}, true},
		{"cut of an urgent queue", urgent, []plan.Change{{Queue: "root.a", Property: "capacity", From: "45", To: "20"}}, false},
		{"raise of another queue", urgent, []plan.Change{{Queue: "root.b", Property: "capacity", From: "20", To: "45"}}, false},
		{"raised ceiling reserves nothing", urgent, []plan.Change{{Queue: "root.a", Property: "maximum-capacity", From: "50", To: "100"}}, false},
		{"absolute resources are not compared", urgent, []plan.Change{{Queue: "root.a", Property: "capacity", From: "[memory=1024]", To: "[memory=4096]"}}, false},
		{"no urgent queues", nil, []plan.Change{{Queue: "root.a", Property: "capacity", From: "20", To: "45"}}, false},
	} {
		if got := act.RaisesUrgent(&plan.Plan{Urgent: tc.urgent, Changes: tc.changes}); got != tc.want {
			t.Errorf("%s: raisesUrgent %v, want %v", tc.name, got, tc.want)
		}
	}
	if act.RaisesUrgent(nil) {
		t.Error("nil plan is urgent")
	}
}

// TestRateLimitUrgentException: an urgent raise passes the least interval
// and the gain threshold, never the hourly cap; a plan that is not urgent
// is held as before.
func TestRateLimitUrgentException(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	raise := []plan.Change{{Queue: "root.a", Property: "capacity", From: "20", To: "45"}}
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
		r := &act.RateLimit{MinInterval: 2 * time.Minute, MaxPerHour: 3, MinGainPercent: 2}
		for _, d := range tc.past {
			r.Record(t0.Add(-d))
		}
		p := &plan.Plan{Changes: raise, Predicted: flat}
		if tc.urgent {
			p.Urgent = map[string]string{"root.a": "job j4 at risk"}
		}
		ok, why := r.Allow(t0, p)
		if ok != tc.allow || !strings.Contains(why, tc.reason) {
			t.Errorf("%s: Allow = %v %q, want %v (reason containing %q)", tc.name, ok, why, tc.allow, tc.reason)
		}
	}
}

// TestDeadlineReserveStep runs the step on root.{a,b,c} (admin 60/20/20,
// 100 slots) with the plan the PS step left.
func TestDeadlineReserveStep(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	goal := t0.Add(150 * time.Second)
	late := t0.Add(6000 * time.Second)
	tree := mustTree(t, schedconf.Conf{pre + "root.queues": "a,b,c",
		pre + "root.a.capacity": "60", pre + "root.b.capacity": "20", pre + "root.c.capacity": "20"})
	seen := map[string]SeenValue{}
	for q, v := range map[string]float64{"root.a": 0.6, "root.b": 0.2, "root.c": 0.2} {
		seen[SeenKey(q, "")] = SeenValue{AbsShare: v}
	}
	job := func(verdict string, needed int) []deadline.QueueReport {
		return []deadline.QueueReport{{Queue: "root.b", Jobs: []deadline.JobReport{{Name: "j4", Queue: "root.b", Deadline: &goal, Needed: needed, Verdict: verdict}}}}
	}
	for _, tc := range []struct {
		name       string
		demand     map[string]int64
		planned    map[string]float64
		deadlines  []deadline.QueueReport
		want       map[string]float64
		wantUrgent bool
	}{
		{"no goals, all busy: plan unchanged", map[string]int64{"root.a": 50, "root.b": 50, "root.c": 50},
			map[string]float64{"root.a": 70, "root.b": 5, "root.c": 25}, nil,
			map[string]float64{"root.a": 70, "root.b": 5, "root.c": 25}, false},
		{"idle queue kept at the admin's guarantee", map[string]int64{"root.a": 50, "root.b": 0, "root.c": 50},
			map[string]float64{"root.a": 70, "root.b": 5, "root.c": 25}, nil,
			map[string]float64{"root.a": 70 - 15*70.0/95, "root.b": 20, "root.c": 25 - 15*25.0/95}, false},
		{"job that cannot meet its goal keeps the admin's guarantee", map[string]int64{"root.a": 50, "root.b": 10, "root.c": 50},
			map[string]float64{"root.a": 70, "root.b": 5, "root.c": 25}, job(deadline.CannotMeet, 90),
			map[string]float64{"root.a": 70 - 15*70.0/95, "root.b": 20, "root.c": 25 - 15*25.0/95}, false},
		{"job at risk gets what it needs, urgent", map[string]int64{"root.a": 50, "root.b": 10, "root.c": 50},
			map[string]float64{"root.a": 70, "root.b": 5, "root.c": 25}, job(deadline.AtRisk, 47),
			map[string]float64{"root.a": 70 - 42*70.0/95, "root.b": 47, "root.c": 25 - 42*25.0/95}, true},
		{"idle queue's promise comes before a reservation", map[string]int64{"root.a": 50, "root.b": 10, "root.c": 0},
			map[string]float64{"root.a": 90, "root.b": 5, "root.c": 5}, job(deadline.AtRisk, 95),
			map[string]float64{"root.a": 0, "root.b": 80, "root.c": 20}, true},
		// a's late job (claims a's 60 promised, after b's earlier goal)
		// gets the 20 left once c's idle 20 and b's 60 are held; c's
		// promise is not scaled down with a's admin floor.
		{"idle queue's promise held in full beside the admin floors", map[string]int64{"root.a": 50, "root.b": 10, "root.c": 0},
			map[string]float64{"root.a": 70, "root.b": 5, "root.c": 25},
			[]deadline.QueueReport{job(deadline.AtRisk, 60)[0], {Queue: "root.a", Jobs: []deadline.JobReport{{Name: "j1", Queue: "root.a", Deadline: &late, Needed: 200, Verdict: deadline.CannotMeet}}}},
			map[string]float64{"root.a": 20, "root.b": 60, "root.c": 20}, true},
	} {
		s := &decideState{Tree: tree, Parts: []progress.PartitionSlots{{Name: "", Slots: map[string]int64{"t": 100}}}, Deadlines: tc.deadlines}
		for _, q := range []string{"root.a", "root.b", "root.c"} {
			s.Queues = append(s.Queues, progress.QueueDemand{Path: q, Demand: tc.demand[q]})
			s.Plan.Queues = append(s.Plan.Queues, progress.QueuePlan{Path: q, Capacity: map[string]float64{"": tc.planned[q]}})
		}
		if err := (deadlineReserveStep{Seen: seen}).Run(s); err != nil {
			t.Fatal(err)
		}
		for _, qp := range s.Plan.Queues {
			if got := qp.Capacity[""]; math.Abs(got-tc.want[qp.Path]) > 1e-6 {
				t.Errorf("%s: %s at %.3f%%, want %.3f%%", tc.name, qp.Path, got, tc.want[qp.Path])
			}
		}
		if got := s.Urgent["root.b"] != ""; got != tc.wantUrgent {
			t.Errorf("%s: root.b urgent %v, want %v (%v)", tc.name, got, tc.wantUrgent, s.Urgent)
		}
	}
}

func TestMergeFloors(t *testing.T) {
	for _, tc := range []struct {
		name        string
		held, admin map[string]float64
		want        map[string]float64
	}{
		{"larger of the two", map[string]float64{"a": 47}, map[string]float64{"a": 20, "b": 20}, map[string]float64{"a": 47, "b": 20}},
		{"no reservations", nil, map[string]float64{"b": 20}, map[string]float64{"b": 20}},
		{"admin floors scaled to the room the reservations leave", map[string]float64{"a": 90}, map[string]float64{"b": 20, "c": 20}, map[string]float64{"a": 90, "b": 5, "c": 5}},
	} {
		if got := mergeFloors(tc.held, tc.admin); !maps.EqualFunc(got, tc.want, func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestUrgentRules(t *testing.T) {
	r := plan.SafetyRules{MaxStepPercent: 25, HysteresisPercent: 2}
	if got := act.UrgentRules(r, nil); got.MaxStepPercent != 25 {
		t.Errorf("no urgent queue: step limit %g, want 25", got.MaxStepPercent)
	}
	got := act.UrgentRules(r, map[string]string{"root.b": "j4 at risk"})
	if got.MaxStepPercent != 0 || got.HysteresisPercent != 2 {
		t.Errorf("urgent: rules %+v, want no step limit and hysteresis kept", got)
	}
	// The step limit lifted, the move lands in one cycle: 5% → 47%.
	res := plan.LimitStep(map[string]float64{"a": 95, "b": 5}, map[string]float64{"a": 53, "b": 47}, nil, got)
	if res.Next["b"] != 47 || res.Limited {
		t.Errorf("urgent step: %v (limited %v), want b at 47", res.Next, res.Limited)
	}
}

// With the RM preempting, the admin's band minimums come before the
// reservations: a claim is
// granted from what they leave (its own queue's minimum first), so the
// band step has nothing to lift afterwards and never squeezes the
// earliest deadline's reservation. root.{a,b,c} at 60/20/20 of 100 slots,
// default bands 0.25×–4×: minimums 15, 5, 5.
func TestDeadlineReserveBandMinimums(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	soon, later := t0.Add(150*time.Second), t0.Add(3000*time.Second)
	tree, seen, bands := bandMinimumsCluster(t)
	rep := func(q, name string, due time.Time, needed int) deadline.QueueReport {
		return deadline.QueueReport{Queue: q, Jobs: []deadline.JobReport{{Name: name, Queue: q, Deadline: &due, Needed: needed, Verdict: deadline.AtRisk}}}
	}
	for _, tc := range []struct {
		name      string
		deadlines []deadline.QueueReport
		want      map[string]float64
	}{
		{"one claim takes all the minimums leave", []deadline.QueueReport{rep("root.b", "j4", soon, 90)},
			map[string]float64{"root.a": 15, "root.b": 80, "root.c": 5}},
		{"a claim within its own minimum costs the pool nothing", []deadline.QueueReport{rep("root.b", "j4", soon, 75), rep("root.c", "j2", later, 5)},
			map[string]float64{"root.a": 15, "root.b": 75, "root.c": 10}},
		{"the later deadline gets what is left, the earlier is not squeezed", []deadline.QueueReport{rep("root.b", "j4", soon, 60), rep("root.c", "j2", later, 40)},
			map[string]float64{"root.a": 15, "root.b": 60, "root.c": 25}},
	} {
		s := &decideState{Tree: tree, Parts: []progress.PartitionSlots{{Name: "", Slots: map[string]int64{"t": 100}}}, Deadlines: tc.deadlines}
		for _, q := range []string{"root.a", "root.b", "root.c"} {
			s.Queues = append(s.Queues, progress.QueueDemand{Path: q, Demand: 50})
			s.Plan.Queues = append(s.Plan.Queues, progress.QueuePlan{Path: q, Capacity: map[string]float64{"": 100.0 / 3}})
		}
		if err := (deadlineReserveStep{Seen: seen, Bands: bands, Guard: &PreemptionGuard{Config: PreemptionConfig{Enabled: "on"}}}).Run(s); err != nil {
			t.Fatal(err)
		}
		for _, qp := range s.Plan.Queues {
			if got := qp.Capacity[""]; math.Abs(got-tc.want[qp.Path]) > 1e-6 {
				t.Errorf("%s: %s at %.3f%%, want %.3f%%", tc.name, qp.Path, got, tc.want[qp.Path])
			}
		}
	}
}

func TestReserveWithin(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	claim := func(q, job string, s, n int) deadlineClaim {
		return deadlineClaim{Queue: q, Job: job, Deadline: t0.Add(time.Duration(s) * time.Second), Needed: n}
	}
	home := map[string]string{"root.a": "", "root.b": ""}
	for _, tc := range []struct {
		name   string
		claims []deadlineClaim
		pool   map[string]float64
		own    map[string]float64
		want   map[string]int
	}{
		{"own minimum first, then the pool", []deadlineClaim{claim("root.a", "j1", 100, 10)}, map[string]float64{"": 8}, map[string]float64{"root.a": 5}, map[string]int{"root.a": 10}},
		{"another queue's minimum is not taken", []deadlineClaim{claim("root.a", "j1", 100, 20)}, map[string]float64{"": 8}, map[string]float64{"root.a": 5, "root.b": 5}, map[string]int{"root.a": 13}},
		{"fractional minimum and pool: whole containers", []deadlineClaim{claim("root.a", "j1", 100, 20)}, map[string]float64{"": 2.5}, map[string]float64{"root.a": 6.4}, map[string]int{"root.a": 8}},
	} {
		if got := reserveWithin(tc.claims, home, tc.pool, tc.own); !maps.Equal(got, tc.want) {
			t.Errorf("%s: held %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Without preemption the band minimums are not set aside: the band step
// lifts a queue to its minimum afterwards, from every queue with room.
func TestDeadlineReserveBandMinimumsOnlyWithPreemption(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	soon := t0.Add(150 * time.Second)
	tree, seen, bands := bandMinimumsCluster(t)
	for _, guard := range []*PreemptionGuard{nil, {Config: PreemptionConfig{Enabled: "off"}}} {
		s := &decideState{Tree: tree, Parts: []progress.PartitionSlots{{Name: "", Slots: map[string]int64{"t": 100}}},
			Deadlines: []deadline.QueueReport{{Queue: "root.b", Jobs: []deadline.JobReport{{Name: "j4", Queue: "root.b", Deadline: &soon, Needed: 90, Verdict: deadline.AtRisk}}}}}
		for _, q := range []string{"root.a", "root.b", "root.c"} {
			s.Queues = append(s.Queues, progress.QueueDemand{Path: q, Demand: 50})
			s.Plan.Queues = append(s.Plan.Queues, progress.QueuePlan{Path: q, Capacity: map[string]float64{"": 100.0 / 3}})
		}
		if err := (deadlineReserveStep{Seen: seen, Bands: bands, Guard: guard}).Run(s); err != nil {
			t.Fatal(err)
		}
		if got := s.Plan.Queues[1].Capacity[""]; got < 90-1e-6 {
			t.Errorf("guard %v: root.b at %.2f%%, want its whole claim of 90 (minimums not set aside)", guard, got)
		}
	}
}

// bandMinimumsCluster is root.{a,b,c} at 60/20/20 of 100 slots, as last
// seen, with the default bands (minimums 15, 5, 5: the config's default
// band, 0.25x–4x).
func bandMinimumsCluster(t *testing.T) (*schedconf.Tree, map[string]SeenValue, GuaranteeBands) {
	t.Helper()
	tree := mustTree(t, schedconf.Conf{pre + "root.queues": "a,b,c",
		pre + "root.a.capacity": "60", pre + "root.b.capacity": "20", pre + "root.c.capacity": "20"})
	seen := map[string]SeenValue{}
	for q, v := range map[string]float64{"root.a": 60, "root.b": 20, "root.c": 20} {
		seen[SeenKey(q, "")] = SeenValue{Share: v, AbsShare: v / 100}
	}
	return tree, seen, GuaranteeBands{Default: Guarantee{Min: 0.25, Max: 4}}
}
