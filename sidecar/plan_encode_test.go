package sidecar

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

func TestBuildPlanWritesEachMode(t *testing.T) {
	now := time.Unix(0, 0)
	for _, tc := range []struct {
		name   string
		live   schedconf.Conf
		enc    plan.Encoding
		etl    float64 // target share of prod, percent
		want   map[string]string
		absent []string // properties that must not be written
	}{
		{"percentage", nestedConf("50", "50", "50", "50", "50", "50"), plan.Encoding{Mode: schedconf.ModePercentage}, 75,
			map[string]string{"root.prod.etl.capacity": "75", "root.prod.reports.capacity": "25"}, nil},
		// Weight mode: shares re-expressed over the siblings' weight sum
		// (3+1 = 4): 75% → 3w, 25% → 1w; nothing but weights is written.
		{"weight", nestedConf("1w", "1w", "2w", "2w", "1w", "1w"), plan.Encoding{Mode: schedconf.ModeWeight, WeightSum: 4}, 75,
			map[string]string{"root.prod.etl.capacity": "3w", "root.prod.reports.capacity": "1w"}, []string{"root.prod.etl.maximum-capacity"}},
		// Absolute: share × the parent's resources (40 GB, 40 vcores);
		// other resource types are kept as configured.
		{"absolute", nestedConf("[memory=40960,vcores=40]", "[memory=40960,vcores=40]", "[memory=20480,vcores=20,yarn.io/gpu=2]", "[memory=20480,vcores=20]",
			"[memory=20480,vcores=20]", "[memory=20480,vcores=20]"), plan.Encoding{Mode: schedconf.ModeAbsolute, ParentMemoryMB: 40960, ParentVCores: 40}, 75,
			map[string]string{"root.prod.etl.capacity": "[memory=30720,vcores=30,yarn.io/gpu=2]", "root.prod.reports.capacity": "[memory=10240,vcores=10]"}, nil},
	} {
		targets := map[string]plan.QueueTarget{
			"root.prod.etl":     {Capacity: map[string]float64{"": tc.etl}, MaxCapacity: map[string]float64{"": 100}, Encoding: map[string]plan.Encoding{"": tc.enc}},
			"root.prod.reports": {Capacity: map[string]float64{"": 100 - tc.etl}, MaxCapacity: map[string]float64{"": 100}, Encoding: map[string]plan.Encoding{"": tc.enc}},
		}
		plan, err := plan.BuildPlan(now, tc.live, 1, targets, plan.SafetyRules{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for k, v := range tc.want {
			if got := plan.Desired[pre+k]; got != v {
				t.Errorf("%s: %s = %q, want %q", tc.name, k, got, v)
			}
		}
		for _, k := range tc.absent {
			if _, ok := plan.Desired[pre+k]; ok {
				t.Errorf("%s: %s was written; this mode writes capacities only", tc.name, k)
			}
		}
		if _, err := schedconf.ParseTree(plan.Desired); err != nil {
			t.Errorf("%s: desired configuration does not parse: %v", tc.name, err)
		}
	}
}

func TestBuildPlanNeverWritesOutsideBands(t *testing.T) {
	// a was set to 5% by hand, below its band [10, 40]: the step limit
	// alone would write 5→... in small steps outside the band; the plan
	// goes straight inside every band instead.
	live := schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": "5", pre + "root.b.capacity": "95"}
	targets := map[string]plan.QueueTarget{
		"root.a": {Capacity: map[string]float64{"": 10}, Bands: map[string]plan.Band{"": {Lo: 10, Hi: 40}}},
		"root.b": {Capacity: map[string]float64{"": 90}, Bands: map[string]plan.Band{"": {Lo: 45, Hi: 100}}},
	}
	plan, err := plan.BuildPlan(time.Unix(0, 0), live, 1, targets, plan.SafetyRules{MaxStepPercent: 2})
	if err != nil {
		t.Fatal(err)
	}
	tree := mustTree(t, plan.Desired)
	for q, tg := range targets {
		v := tree.ByPath[q].Capacity[""].Percent
		if v < tg.Bands[""].Lo || v > tg.Bands[""].Hi {
			t.Errorf("%s written as %g, outside %+v", q, v, tg.Bands[""])
		}
	}
}

func TestRateLimit(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	pl := func(next, now float64, home bool) *plan.Plan {
		p := &plan.Plan{Predicted: map[string]float64{"sum_ps": next, "sum_ps_now": now}}
		p.Changes = []plan.Change{{Queue: "root.a", Property: "capacity"}}
		if home {
			p.Changes = append(p.Changes, plan.Change{Queue: "root.a", Property: "default-node-label-expression"})
		}
		return p
	}
	r := &act.RateLimit{MinInterval: 2 * time.Minute, MaxPerHour: 3, MinGainPercent: 2}
	steps := []struct {
		at time.Duration
		pl *plan.Plan
		ok bool
	}{
		{0, pl(1.1, 1, false), true},
		{time.Minute, pl(1.1, 1, false), false},      // within min_apply_interval
		{3 * time.Minute, pl(1.01, 1, false), false}, // gain 1% < 2%
		{3 * time.Minute, pl(1.01, 1, true), true},   // a home change is always worth it
		{6 * time.Minute, pl(2, 1, false), true},     // third in the hour
		{9 * time.Minute, pl(2, 1, false), false},    // fourth: over max_mutations_per_hour
		{61 * time.Minute, pl(2, 1, false), true},    // the first has left the hour
	}
	for i, st := range steps {
		now := t0.Add(st.at)
		ok, why := r.Allow(now, st.pl)
		if ok != st.ok {
			t.Fatalf("step %d at %s: allowed=%v (%s), want %v", i, st.at, ok, why, st.ok)
		}
		if ok {
			r.Record(now)
		}
	}
	if n := r.PerHour(t0.Add(61 * time.Minute)); n != 3 {
		t.Errorf("mutations in the last hour = %d, want 3", n)
	}
	var nilLimit *act.RateLimit
	if ok, _ := nilLimit.Allow(t0, pl(1, 1, false)); !ok {
		t.Errorf("a nil rate limit must allow")
	}
}

// TestRateLimitReserve: with 12 an hour and 2 reserved, the 11th and 12th
// mutations go only to plans that raise a queue back toward its guarantee
// or for a deadline; past the cap only a plan that gives back and does
// nothing else passes (act.GivesBackOnly), or one whose every change goes
// back toward the admin's value and repairs a predicted harm
// (act.RepairsOnly).
func TestRateLimitReserve(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	gain := map[string]float64{"sum_ps": 2, "sum_ps_now": 1}
	ps := &plan.Plan{Predicted: gain, Changes: []plan.Change{{Queue: "root.a", Property: "capacity", From: "40", To: "60"}}}
	back := func(from, to string) *plan.Plan {
		return &plan.Plan{Predicted: gain, Changes: []plan.Change{{Queue: "root.b", Property: "capacity", From: from, To: to}},
			Restores: map[string]string{"root.b": "back toward its guarantee"}}
	}
	urgent := &plan.Plan{Predicted: gain, Changes: []plan.Change{{Queue: "root.b", Property: "capacity", From: "20", To: "45"}},
		Urgent: map[string]string{"root.b": "job j4 at risk"}}
	// Tuning cluster 45: the first half hour's moves spent the hour with
	// etl routed to gpu, its CPU-bound class predicted 44% slower than
	// under the admin's configuration; the plan that moves every value
	// back toward the admin's waited 35 minutes (act.RepairsOnly).
	etl, prod, home, ml := "67w", "33w", "", "33w"
	returning := &plan.Plan{Predicted: gain, Changes: []plan.Change{
		{Queue: "root.prod", Partition: "gpu", Property: "accessible-node-labels.gpu.capacity", From: "83.25w", To: "58.25w", Admin: &prod},
		{Queue: "root.prod.etl", Partition: "gpu", Property: "accessible-node-labels.gpu.capacity", From: "91.75w", To: "75w", Admin: &etl},
		{Queue: "root.prod.etl", Property: "default-node-label-expression", From: "gpu", To: "", Admin: &home},
	}, Repairs: []string{"prod.etl/c4-cpu -44%"}}
	noHarm := *returning
	noHarm.Repairs = nil
	for _, tc := range []struct {
		name     string
		past     int // mutations in the last hour
		reserved int
		plan     *plan.Plan
		allow    bool
		reason   string
	}{
		{"below the reserve: any plan", 9, 2, ps, true, ""},
		{"reserve reached: a ΣPS move waits", 10, 2, ps, false, "kept for moves back"},
		{"reserve reached: a raise back toward the guarantee passes", 10, 2, back("20", "40"), true, ""},
		{"reserve reached: a listed queue lowered does not pass", 10, 2, back("40", "20"), false, "kept for moves back"},
		{"reserve reached: a raise for a deadline at risk passes", 11, 2, urgent, true, ""},
		{"reserve reached: a move back to the admin's home passes", 10, 2, &plan.Plan{Predicted: gain,
			Changes:  []plan.Change{{Queue: "root.b", Property: "default-node-label-expression", From: "gpu", To: ""}},
			Restores: map[string]string{"root.b": "back to its home partition"}}, true, ""},
		{"reserve reached: a home move of a queue not listed waits", 10, 2, &plan.Plan{Predicted: gain,
			Changes: []plan.Change{{Queue: "root.b", Property: "default-node-label-expression", From: "", To: "gpu"}}}, false, "kept for moves back"},
		{"cap reached: a plan that only gives back passes (issue 32)", 12, 2, back("20", "40"), true, ""},
		{"cap reached: a restoring plan that also raises another queue waits", 12, 2, &plan.Plan{Predicted: gain,
			Changes:  []plan.Change{{Queue: "root.b", Property: "capacity", From: "20", To: "40"}, {Queue: "root.c", Property: "capacity", From: "10", To: "20"}},
			Restores: map[string]string{"root.b": "back toward its guarantee"}}, false, "max_mutations_per_hour is 12"},
		{"cap reached: a restoring plan that also routes another queue waits", 12, 2, &plan.Plan{Predicted: gain,
			Changes:  []plan.Change{{Queue: "root.b", Property: "capacity", From: "20", To: "40"}, {Queue: "root.c", Property: "default-node-label-expression", From: "", To: "gpu"}},
			Restores: map[string]string{"root.b": "back toward its guarantee"}}, false, "max_mutations_per_hour is 12"},
		{"cap reached: a guest's ceiling lowered with the restore passes", 12, 2, &plan.Plan{Predicted: gain,
			Changes:  []plan.Change{{Queue: "root.b", Property: "capacity", From: "20", To: "40"}, {Queue: "root.c", Property: "capacity", From: "40", To: "20"}, {Queue: "root.c", Property: "maximum-capacity", From: "100", To: "20"}},
			Restores: map[string]string{"root.b": "a guest's guarantee given back"}}, true, ""},
		{"cap reached: a ΣPS move waits", 12, 2, ps, false, "max_mutations_per_hour is 12"},
		{"cap reached: a plan whose every change goes back toward the admin's passes (cluster 45)", 12, 2, returning, true, ""},
		{"reserve reached: the same return passes", 10, 2, returning, true, ""},
		{"cap reached: a return with no predicted harm to repair waits", 12, 2, &noHarm, false, "max_mutations_per_hour is 12"},
		{"cap reached: one change away from the admin's makes it wait", 12, 2, &plan.Plan{Predicted: gain,
			Changes: append(slices.Clone(returning.Changes), plan.Change{Queue: "root.prod.ml", Partition: "gpu", Property: "accessible-node-labels.gpu.capacity", From: "25w", To: "8w", Admin: &ml}),
			Repairs: returning.Repairs}, false, "max_mutations_per_hour is 12"},
		{"no reserve: as before", 11, 0, ps, true, ""},
	} {
		r := &act.RateLimit{MaxPerHour: 12, Reserved: tc.reserved}
		for i := 0; i < tc.past; i++ {
			r.Record(t0.Add(-time.Duration(tc.past-i) * time.Minute))
		}
		ok, why := r.Allow(t0, tc.plan)
		if ok != tc.allow || !strings.Contains(why, tc.reason) {
			t.Errorf("%s: Allow = %v %q, want %v (reason containing %q)", tc.name, ok, why, tc.allow, tc.reason)
		}
	}
	if r := act.NewRateLimit(act.RateConfig{MaxMutationsPerHour: 12}); r.Reserved != act.DefaultReservedMutations {
		t.Errorf("NewRateLimit reserves %d, want %d", r.Reserved, act.DefaultReservedMutations)
	}
}

func TestApplierDefersWhenRateLimited(t *testing.T) {
	rm := &fakeRM{conf: twoQueueConf(), version: 1}
	a, _ := newApplier(t, rm)
	a.Mode = act.ModeApply
	a.Rate = &act.RateLimit{MinInterval: time.Hour}
	p := planFor(t, rm, gpuTargets(70, 30))
	a.Rate.Record(p.Time.Add(-30 * time.Minute))
	out, err := a.Apply(context.Background(), p)
	if err != nil || out.Result != act.ResultDeferred {
		t.Fatalf("result %s, err %v; want deferred", out.Result, err)
	}
	if rm.puts != 0 {
		t.Errorf("%d PUTs while rate-limited", rm.puts)
	}
}

func TestFirstSeenSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "first-seen.json")
	admin := schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": "30", pre + "root.b.capacity": "70"}
	f := &FirstSeen{Path: path}
	if _, err := f.Observe(mustTree(t, admin)); err != nil {
		t.Fatal(err)
	}
	if err := f.Save(); err != nil {
		t.Fatal(err)
	}
	// The sidecar wrote 60/40; after a restart the band is still relative
	// to the admin's 30/70.
	written := schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": "60", pre + "root.b.capacity": "40"}
	g := &FirstSeen{Path: path}
	seen, err := g.Observe(mustTree(t, written))
	if err != nil {
		t.Fatal(err)
	}
	if v := seen[seenKey("root.a", "")]; v.Share != 30 || v.Raw != "30" {
		t.Errorf("first-seen root.a = %+v, want the admin's 30", v)
	}
}
