package decide

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// harmWorld: two leaves a and b at 50% each of a default partition of 20
// cpu slots and a non-exclusive gpu partition of 10 gpu slots. Class x
// runs 4× on gpu, class y 0.5× there; a holds x, b holds y, 20 containers
// of demand each. The admin's configuration is the live one (first seen).
func harmWorld(t *testing.T) *decideState {
	conf := schedconf.Conf{
		"yarn.scheduler.capacity.root.queues":                                "a,b",
		"yarn.scheduler.capacity.root.accessible-node-labels.gpu.capacity":   "100",
		"yarn.scheduler.capacity.root.a.capacity":                            "50",
		"yarn.scheduler.capacity.root.b.capacity":                            "50",
		"yarn.scheduler.capacity.root.a.accessible-node-labels":              "gpu",
		"yarn.scheduler.capacity.root.b.accessible-node-labels":              "gpu",
		"yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.capacity": "50",
		"yarn.scheduler.capacity.root.b.accessible-node-labels.gpu.capacity": "50",
	}
	return &decideState{Live: conf, Tree: mustTree(t, conf),
		Parts: []progress.PartitionSlots{{Name: "", Slots: map[string]int64{"cpu": 20}}, {Name: "gpu", Slots: map[string]int64{"gpu": 10}}},
		Queues: []progress.QueueDemand{
			{Path: "root.a", Demand: 20, Mix: map[string]float64{"x": 1}, Accessible: []string{"gpu"}},
			{Path: "root.b", Demand: 20, Mix: map[string]float64{"y": 1}, Accessible: []string{"gpu"}},
		},
		Rates: progress.RateMap{"x": {"cpu": 1, "gpu": 4}, "y": {"cpu": 1, "gpu": 0.5}},
	}
}

func seenOf(s *decideState) map[string]SeenValue {
	f := &MemorySeen{}
	seen, _ := f.Observe(s.Tree)
	return seen
}

func TestHarmStep(t *testing.T) {
	home := func(h string) *string { return &h }
	cases := []struct {
		name    string
		targets map[string]plan.QueueTarget
		urgent  map[string]string
		margin  float64
		// want: root.b's default capacity after the step, and whether a
		// cut-back note is written.
		wantB     float64
		wantCut   bool
		wantHomeA string
	}{
		{"a plan that harms no class stands",
			// a routed to gpu (x gains 4×), b keeps its default half and
			// gets a's default half when a leaves: b is not slower.
			map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 20, "gpu": 100}, DefaultLabelExpression: home("gpu")},
				"root.b": {Capacity: map[string]float64{"": 80, "gpu": 0}}},
			nil, 0, 80, false, "gpu"},
		{"squeezing b for a's ΣPS is cut back",
			// b to 10% of the default partition while a keeps borrowing
			// the gpu: b's 20 containers of demand get 10 + what a leaves.
			map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 90, "gpu": 50}}, "root.b": {Capacity: map[string]float64{"": 10, "gpu": 50}}},
			nil, 0, 50, true, ""},
		{"an urgent queue's raise is not cut, the harm it does is",
			map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 90, "gpu": 50}}, "root.b": {Capacity: map[string]float64{"": 10, "gpu": 50}}},
			map[string]string{"root.a": "deadline at risk"}, 0, 10, true, ""},
		{"the check off (negative margin) leaves the plan",
			map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 90, "gpu": 50}}, "root.b": {Capacity: map[string]float64{"": 10, "gpu": 50}}},
			nil, -1, 10, false, ""},
		{"a 40/60 move within a large margin stands",
			map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 60, "gpu": 50}}, "root.b": {Capacity: map[string]float64{"": 40, "gpu": 50}}},
			nil, 50, 40, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := harmWorld(t)
			seen := seenOf(s)
			s.Targets, s.Urgent = tc.targets, tc.urgent
			if err := (harmStep{Seen: seen, Margin: tc.margin}).Run(s); err != nil {
				t.Fatal(err)
			}
			cut := strings.Contains(strings.Join(s.Notes, " "), "do no harm")
			if cut != tc.wantCut {
				t.Fatalf("cut %v (notes %v), want %v", cut, s.Notes, tc.wantCut)
			}
			if b := s.Targets["root.b"].Capacity[""]; math.Abs(b-tc.wantB) > 0.5 && !(tc.urgent != nil && b >= tc.wantB) {
				t.Errorf("root.b default capacity %.2f, want %.2f", b, tc.wantB)
			}
			if tc.urgent != nil {
				if a := s.Targets["root.a"].Capacity[""]; a != 90 {
					t.Errorf("urgent root.a cut to %.2f, want its 90 kept", a)
				}
			}
			if tc.wantHomeA != "" {
				if h := s.Targets["root.a"].DefaultLabelExpression; h == nil || *h != tc.wantHomeA {
					t.Errorf("root.a home %v, want %s", h, tc.wantHomeA)
				}
			}
			// After the step no class is predicted slower than under the
			// admin's configuration by more than the margin (when on).
			if tc.margin >= 0 && tc.urgent == nil {
				admin := harmServe(s.Parts, s.Queues, (harmStep{Seen: seen}).adminConfig(s), s.Rates)
				got := harmServe(s.Parts, s.Queues, planConfig(s, s.Targets), s.Rates)
				m := tc.margin
				if m == 0 {
					m = DefaultHarmMarginPercent
				}
				for k, v := range admin {
					if got[k] < v*(1-m/100)-1e-9 {
						t.Errorf("%q predicted %.2f against the admin's %.2f", k, got[k], v)
					}
				}
			}
		})
	}
}

// The fluid model by hand: under the admin's 50/50 both queues live in
// the default partition and each wants 20: a and b get 10 cpu slots each,
// then the 10 idle gpu slots (non-exclusive) are lent by default-partition
// guarantee, 5 each. x: 10·1 + 5·4 = 30; y: 10·1 + 5·0.5 = 12.5.
func TestHarmServeByHand(t *testing.T) {
	s := harmWorld(t)
	got := harmServe(s.Parts, s.Queues, (harmStep{Seen: seenOf(s)}).adminConfig(s), s.Rates)
	if math.Abs(got["root.a\x00x"]-30) > 1e-6 || math.Abs(got["root.b\x00y"]-12.5) > 1e-6 {
		t.Fatalf("served %v, want a/x 30, b/y 12.5", got)
	}
}

// An unmeasured type counts at the class's slowest measured rate.
func TestHarmRateUnmeasured(t *testing.T) {
	r := progress.RateMap{"x": {"cpu": 1.5, "old": 1}}
	p := progress.PartitionSlots{Name: "gpu", Slots: map[string]int64{"gpu": 4}}
	if v := harmRate(r, "x", p, []string{"cpu", "old", "gpu"}); v != 1 {
		t.Fatalf("rate %g, want the slowest measured 1", v)
	}
	if v := harmRate(progress.RateMap{}, "z", p, []string{"gpu"}); v != 1 {
		t.Fatalf("rate %g of an unmeasured class, want 1", v)
	}
}

// Repairs (issue 32, act.RepairsOnly): a class the live configuration is
// predicted to slow against the admin's and the plan does not is named;
// with the live configuration the admin's, or the check off, none is.
func TestHarmStepRepairs(t *testing.T) {
	squeezed := func(s *decideState) {
		live := s.Live.Clone()
		live["yarn.scheduler.capacity.root.a.capacity"] = "90"
		live["yarn.scheduler.capacity.root.b.capacity"] = "10"
		s.Live, s.Tree = live, mustTree(t, live)
	}
	back := map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 50, "gpu": 50}}, "root.b": {Capacity: map[string]float64{"": 50, "gpu": 50}}}
	stay := map[string]plan.QueueTarget{"root.a": {Capacity: map[string]float64{"": 90, "gpu": 50}}, "root.b": {Capacity: map[string]float64{"": 10, "gpu": 50}}}
	for _, tc := range []struct {
		name    string
		squeeze bool
		targets map[string]plan.QueueTarget
		margin  float64
		want    []string // queue/class named
	}{
		{"live squeezes b, the plan gives it back: b/y repaired", true, back, 0, []string{"b/y"}},
		{"live squeezes b, the plan keeps it: cut back to the admin's, repaired", true, stay, 0, []string{"b/y"}},
		{"live is the admin's: nothing to repair", false, back, 0, nil},
		{"the check off: nothing named", true, back, -1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := harmWorld(t)
			seen := seenOf(s) // the admin's: a and b at 50%
			if tc.squeeze {
				squeezed(s)
			}
			s.Targets = tc.targets
			if err := (harmStep{Seen: seen, Margin: tc.margin}).Run(s); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range s.Repairs {
				got = append(got, harmedClass(r))
			}
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("repairs %v, want %s among them", s.Repairs, w)
				}
			}
			if tc.want == nil && len(got) > 0 {
				t.Errorf("repairs %v, want none", s.Repairs)
			}
		})
	}
}
