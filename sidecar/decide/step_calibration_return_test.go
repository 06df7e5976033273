package decide

import (
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// calibrationTree: root.{a,b}, both may use gpu; a routed to gpu.
func calibrationTree(t *testing.T, home string) *schedconf.Tree {
	c := schedconf.Conf{pre + "root.queues": "a,b", pre + "root.a.capacity": "50", pre + "root.b.capacity": "50",
		pre + "root.accessible-node-labels": "gpu", pre + "root.accessible-node-labels.gpu.capacity": "100",
		pre + "root.a.accessible-node-labels": "gpu", pre + "root.a.accessible-node-labels.gpu.capacity": "50",
		pre + "root.b.accessible-node-labels": "gpu", pre + "root.b.accessible-node-labels.gpu.capacity": "50"}
	if home != "" {
		c[pre+"root.a.default-node-label-expression"] = home
	}
	return mustTree(t, c)
}

// TestCalibrationReturnStep: root.a was sent to gpu to calibrate its
// report class; the default partition has 60 cpu-old and 30 cpu-new slots
// (report 1.5× on cpu-new: mean CR 1.17), gpu 10 gpu slots.
func TestCalibrationReturnStep(t *testing.T) {
	def := ""
	parts := []progress.PartitionSlots{{Name: "", Slots: map[string]int64{"cpu-old": 60, "cpu-new": 30}}, {Name: "gpu", Slots: map[string]int64{"gpu": 10}}}
	measured := progress.RateMap{"report": {"cpu-old": 1, "cpu-new": 1.5, "gpu": 1}, "crypto": {"cpu-old": 1, "cpu-new": 1.5, "gpu": 2}}
	unmeasured := progress.RateMap{"report": {"cpu-old": 1, "cpu-new": 1.5}}
	for _, tc := range []struct {
		name    string
		live    string // root.a's live home
		sent    CalibrationSent
		demand  int64
		pinned  bool
		rates   progress.RateMap
		seen    *string
		want    string // root.a's target home
		wantWhy bool
	}{
		{"idle, measured, no gain on gpu: home", "gpu", CalibrationSent{"gpu", []string{"report"}}, 0, false, measured, &def, "", true},
		{"busy: the plan decides", "gpu", CalibrationSent{"gpu", []string{"report"}}, 40, false, measured, &def, "gpu", false},
		{"idle, not measured on gpu yet: stays", "gpu", CalibrationSent{"gpu", []string{"report"}}, 0, false, unmeasured, &def, "gpu", false},
		{"idle, gpu runs its class faster: stays", "gpu", CalibrationSent{"gpu", []string{"crypto"}}, 0, false, measured, &def, "gpu", false},
		{"idle, two classes, their mean gains on gpu (1.5 vs 1.17): stays", "gpu", CalibrationSent{"gpu", []string{"crypto", "report"}}, 0, false, measured, &def, "gpu", false},
		{"pinned: left alone", "gpu", CalibrationSent{"gpu", []string{"report"}}, 0, true, measured, &def, "gpu", false},
		{"admin's home unknown: left alone", "gpu", CalibrationSent{"gpu", []string{"report"}}, 0, false, measured, nil, "gpu", false},
		{"no classes recorded: left alone", "gpu", CalibrationSent{"gpu", nil}, 0, false, measured, &def, "gpu", false},
	} {
		tree := calibrationTree(t, tc.live)
		home := tc.live
		s := &decideState{Tree: tree, Parts: parts, Rates: tc.rates,
			Queues:  []progress.QueueDemand{{Path: "root.a", Demand: tc.demand, Pinned: tc.pinned}, {Path: "root.b", Demand: 10}},
			Targets: map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 50}, DefaultLabelExpression: &home}}}
		seen := map[string]SeenValue{SeenKey("root.a", ""): {Share: 50, AbsShare: 0.5, Home: tc.seen}}
		if err := (calibrationReturnStep{Sent: map[string]CalibrationSent{"root.a": tc.sent}, Seen: seen}).Run(s); err != nil {
			t.Fatal(err)
		}
		if got := *s.Targets["root.a"].DefaultLabelExpression; got != tc.want {
			t.Errorf("%s: home %q, want %q", tc.name, got, tc.want)
		}
		if got := strings.Contains(s.Targets["root.a"].Reason, "calibrated in"); got != tc.wantWhy {
			t.Errorf("%s: reason %q, want a calibration reason %v", tc.name, s.Targets["root.a"].Reason, tc.wantWhy)
		}
		// restoresStep then names the move back a restore (the reserve).
		if err := (restoresStep{Seen: seen}).Run(s); err != nil {
			t.Fatal(err)
		}
		if _, ok := s.Restores["root.a"]; ok != tc.wantWhy {
			t.Errorf("%s: restores %v, want root.a %v", tc.name, s.Restores, tc.wantWhy)
		}
	}
}

// TestCalibrationsMemory: what the decider remembers between decisions.
func TestCalibrationsMemory(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before calibrations
		live   string
		plan   progress.QueuePlan
		mix    map[string]float64
		want   *CalibrationSent
	}{
		{"the plan sends a queue: recorded with its classes", calibrations{}, "", progress.QueuePlan{Path: "root.a", Calibrating: "gpu"},
			map[string]float64{"report": 40}, &CalibrationSent{"gpu", []string{"report"}}},
		{"not written yet (live elsewhere): forgotten, then recorded again", calibrations{"root.a": {"gpu", []string{"report"}}}, "",
			progress.QueuePlan{Path: "root.a", Calibrating: "gpu"}, nil, &CalibrationSent{"gpu", nil}},
		{"living there, a new class runs: added", calibrations{"root.a": {"gpu", []string{"report"}}}, "gpu",
			progress.QueuePlan{Path: "root.a", Home: "gpu"}, map[string]float64{"sort": 5}, &CalibrationSent{"gpu", []string{"report", "sort"}}},
		{"living there, idle: kept", calibrations{"root.a": {"gpu", []string{"report"}}}, "gpu",
			progress.QueuePlan{Path: "root.a", Home: "gpu"}, nil, &CalibrationSent{"gpu", []string{"report"}}},
		{"moved back home: forgotten", calibrations{"root.a": {"gpu", []string{"report"}}}, "",
			progress.QueuePlan{Path: "root.a"}, map[string]float64{"report": 3}, nil},
		{"never sent: nothing", calibrations{}, "gpu", progress.QueuePlan{Path: "root.a", Home: "gpu"}, map[string]float64{"report": 3}, nil},
	} {
		tree := calibrationTree(t, tc.live)
		c := tc.before
		c.forget(tree)
		c.record(progress.CapacityPlan{Queues: []progress.QueuePlan{tc.plan}}, []progress.QueueDemand{{Path: "root.a", Mix: tc.mix}}, tree)
		got, ok := c["root.a"]
		switch {
		case tc.want == nil && ok:
			t.Errorf("%s: remembered %+v, want nothing", tc.name, got)
		case tc.want != nil && (!ok || got.Partition != tc.want.Partition || strings.Join(got.Classes, ",") != strings.Join(tc.want.Classes, ",")):
			t.Errorf("%s: remembered %+v (%v), want %+v", tc.name, got, ok, *tc.want)
		}
	}
}
