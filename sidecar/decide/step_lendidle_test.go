package decide

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
)

func TestLendIdleStep(t *testing.T) {
	home := func(h string) *string { return &h }
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		// demandA, demandB now; lastB: when b last had demand before now
		// (zero: never).
		demandA, demandB int64
		lastB            time.Duration
		targets          map[string]plan.QueueTarget
		urgent           map[string]string
		window           time.Duration
		wantA, wantB     float64 // default-partition capacity after the step
		wantHomeA        string
		wantNote         bool
	}{
		{"a busy queue's cut is restored from the raised sibling",
			20, 20, 0,
			map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 80, "gpu": 50}}, "root.b": {Capacity: map[string]float64{"": 20, "gpu": 50}}},
			nil, 0, 50, 50, "", true},
		{"an idle queue's guarantee is lent",
			20, 0, 0,
			map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 80, "gpu": 50}}, "root.b": {Capacity: map[string]float64{"": 20, "gpu": 50}}},
			nil, 0, 80, 20, "", false},
		{"idle now but busy within the window counts busy",
			20, 0, -5 * time.Minute,
			map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 80, "gpu": 50}}, "root.b": {Capacity: map[string]float64{"": 20, "gpu": 50}}},
			nil, 0, 50, 50, "", true},
		{"busy longer ago than the window is idle",
			20, 0, -11 * time.Minute,
			map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 80, "gpu": 50}}, "root.b": {Capacity: map[string]float64{"": 20, "gpu": 50}}},
			nil, 0, 80, 20, "", false},
		{"a deadline queue's raise is not taken back",
			20, 20, 0,
			map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 80, "gpu": 50}}, "root.b": {Capacity: map[string]float64{"": 20, "gpu": 50}}},
			map[string]string{"root.a": "deadline at risk"}, 0, 80, 20, "", false},
		{"the step off (negative window) leaves the plan",
			20, 20, 0,
			map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 80, "gpu": 50}}, "root.b": {Capacity: map[string]float64{"": 20, "gpu": 50}}},
			nil, -1, 80, 20, "", false},
		{"a route into a partition nobody else uses stands",
			// gpu has 10 slots and no queue lives there: a's 20 containers
			// of demand may use all of them.
			20, 20, 0,
			map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 50, "gpu": 50}, DefaultLabelExpression: home("gpu")}, "root.b": {Capacity: map[string]float64{"": 50, "gpu": 50}}},
			nil, 0, 50, 50, "gpu", false},
		{"a route into a partition its own queue fills goes home",
			// b lives in gpu (set below) with 20 containers of demand.
			20, 20, 0,
			map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 50, "gpu": 50}, DefaultLabelExpression: home("gpu")}, "root.b": {Capacity: map[string]float64{"": 50, "gpu": 50}}},
			nil, 0, 50, 50, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := harmWorld(t)
			if strings.Contains(tc.name, "its own queue fills") {
				s.Live["yarn.scheduler.capacity.root.b.default-node-label-expression"] = "gpu"
				s.Tree = mustTree(t, s.Live)
			}
			seen := seenOf(s)
			s.Snap.Time = t0
			s.Queues[0].Demand, s.Queues[1].Demand = tc.demandA, tc.demandB
			s.Targets, s.Urgent = tc.targets, tc.urgent
			r := &recentDemand{}
			if tc.lastB != 0 {
				r.last = map[string]time.Time{"root.b": t0.Add(tc.lastB)}
			}
			if err := (lendIdleStep{Seen: seen, Recent: r, Window: tc.window}).Run(s); err != nil {
				t.Fatal(err)
			}
			a, b := s.Targets["root.a"].Capacity[""], s.Targets["root.b"].Capacity[""]
			if math.Abs(a-tc.wantA) > 1e-6 || math.Abs(b-tc.wantB) > 1e-6 {
				t.Errorf("default capacities a %.2f b %.2f, want %.2f %.2f", a, b, tc.wantA, tc.wantB)
			}
			if math.Abs(a+b-100) > 1e-6 {
				t.Errorf("siblings sum to %.2f, want 100", a+b)
			}
			if h := s.Targets["root.a"].DefaultLabelExpression; h != nil && *h != tc.wantHomeA {
				t.Errorf("root.a home %q, want %q", *h, tc.wantHomeA)
			}
			note := strings.Contains(strings.Join(s.Notes, " "), "lend only idle")
			if note != tc.wantNote {
				t.Errorf("note %v (%v), want %v", note, s.Notes, tc.wantNote)
			}
			if tc.wantNote && len(s.Restores) == 0 {
				t.Errorf("a restore or a route home not listed in Restores (the rate limit's exception)")
			}
		})
	}
}

// A busy leaf under a cut parent: the parent is restored in its own
// sibling group (the rule holds at every level of a nested tree).
func TestLendIdleNested(t *testing.T) {
	conf := map[string]string{
		"yarn.scheduler.capacity.root.queues":       "p,q",
		"yarn.scheduler.capacity.root.p.capacity":   "60",
		"yarn.scheduler.capacity.root.q.capacity":   "40",
		"yarn.scheduler.capacity.root.p.queues":     "x,y",
		"yarn.scheduler.capacity.root.p.x.capacity": "50",
		"yarn.scheduler.capacity.root.p.y.capacity": "50",
		"yarn.scheduler.capacity.root.q.queues":     "z",
		"yarn.scheduler.capacity.root.q.z.capacity": "100",
	}
	s := &decideState{Live: conf, Tree: mustTree(t, conf), Snap: harmWorld(t).Snap,
		Parts:  []progress.PartitionSlots{{Name: "", Slots: map[string]int64{"cpu": 20}}},
		Queues: []progress.QueueDemand{{Path: "root.p.x", Demand: 5}, {Path: "root.q.z", Demand: 30}},
		Targets: map[string]plan.QueueTarget{
			"root.p":   {Capacity: map[string]float64{"": 30}},
			"root.q":   {Capacity: map[string]float64{"": 70}},
			"root.p.x": {Capacity: map[string]float64{"": 50}},
			"root.p.y": {Capacity: map[string]float64{"": 50}},
		}}
	seen := seenOf(s)
	if err := (lendIdleStep{Seen: seen, Recent: &recentDemand{}}).Run(s); err != nil {
		t.Fatal(err)
	}
	if p, q := s.Targets["root.p"].Capacity[""], s.Targets["root.q"].Capacity[""]; p != 60 || q != 40 {
		t.Fatalf("root.p %.2f root.q %.2f, want the admin's 60/40 (x is busy under p)", p, q)
	}
}

// A guest (a leaf the plan moves into a partition that is not its admin
// home) keeps only the share the partition's own busy queues leave idle;
// the rest goes back to them (tuning cluster 3).
func TestLendIdleGuestShare(t *testing.T) {
	conf := map[string]string{
		"yarn.scheduler.capacity.root.queues":                           "bi,etl,ml",
		"yarn.scheduler.capacity.root.bi.capacity":                      "60",
		"yarn.scheduler.capacity.root.etl.capacity":                     "20",
		"yarn.scheduler.capacity.root.ml.capacity":                      "20",
		"yarn.scheduler.capacity.root.bi.default-node-label-expression": "gpu",
	}
	home := func(h string) *string { return &h }
	for _, tc := range []struct {
		name    string
		etl, ml int64 // demand of the default partition's own queues (20 slots)
		wantBI  float64
		wantMax float64 // bi's maximum-capacity there (the admin's 100 when nothing is capped)
		// wantHome is bi's home after the step: the route ("") stands
		// while a container is left idle to it, else the admin's gpu
		// (tuning cluster 24).
		wantHome string
	}{
		{"owners ask 15 of 20 slots: bi keeps 25% and borrows no more", 10, 5, 25, 25, ""},
		{"owners ask 19: bi keeps 5%, the owners get the rest back by the admin's shares", 12, 7, 5, 5, ""},
		{"owners ask 5: bi's 60% is within the idle 75%", 3, 2, 60, 100, ""},
		// Now 10 of 20 (guestRoutes keeps the route), but both asked 10
		// five minutes ago: nothing is idle at their peak.
		{"owners asked all 20 within the window: bi goes home rather than stay at 0%", 5, 5, 0, 0, "gpu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &decideState{Live: conf, Tree: mustTree(t, conf), Snap: harmWorld(t).Snap,
				Parts:  []progress.PartitionSlots{{Name: "", Slots: map[string]int64{"cpu": 20}}, {Name: "gpu", Slots: map[string]int64{"gpu": 4}}},
				Queues: []progress.QueueDemand{{Path: "root.bi", Demand: 30}, {Path: "root.etl", Demand: tc.etl}, {Path: "root.ml", Demand: tc.ml}},
				Targets: map[string]plan.QueueTarget{
					"root.bi":  {Capacity: map[string]float64{"": 60}, MaxCapacity: map[string]float64{"": 100}, DefaultLabelExpression: home("")},
					"root.etl": {Capacity: map[string]float64{"": 20}},
					"root.ml":  {Capacity: map[string]float64{"": 20}},
				}}
			seen := seenOf(s)
			recent := &recentDemand{}
			if tc.wantHome == "gpu" {
				before := s.Snap.Time.Add(-5 * time.Minute)
				recent.observe([]progress.QueueDemand{{Path: "root.etl", Demand: 10}, {Path: "root.ml", Demand: 10}}, before, DefaultIdleWindow)
			}
			if err := (lendIdleStep{Seen: seen, Recent: recent}).Run(s); err != nil {
				t.Fatal(err)
			}
			got := func(q string) float64 { return s.Targets[q].Capacity[""] }
			if math.Abs(got("root.bi")-tc.wantBI) > 1e-6 || math.Abs(got("root.etl")+got("root.ml")+got("root.bi")-100) > 1e-6 {
				t.Fatalf("bi %.2f etl %.2f ml %.2f, want bi %.2f and a sum of 100", got("root.bi"), got("root.etl"), got("root.ml"), tc.wantBI)
			}
			if m := s.Targets["root.bi"].MaxCapacity[""]; math.Abs(m-tc.wantMax) > 1e-6 {
				t.Fatalf("bi's maximum-capacity %.2f, want %.2f", m, tc.wantMax)
			}
			if h := s.Targets["root.bi"].DefaultLabelExpression; h == nil || *h != tc.wantHome {
				t.Fatalf("bi's home %v, want %q", h, tc.wantHome)
			}
			if _, restored := s.Restores["root.bi"]; restored != (tc.wantHome == "gpu") {
				t.Fatalf("bi restored %v, want %v (a route undone passes as a restore)", restored, tc.wantHome == "gpu")
			}
			if math.Abs(got("root.etl")-got("root.ml")) > 1e-6 {
				t.Fatalf("etl %.2f ml %.2f: the freed share follows the admin's equal shares", got("root.etl"), got("root.ml"))
			}
		})
	}
}
