package progress

import (
	"math"
	"slices"
	"testing"
)

func sumCap(p CapacityPlan, part string) float64 {
	s := 0.0
	for _, q := range p.Queues {
		s += q.Capacity[part]
	}
	return s
}

func find(p CapacityPlan, path string) QueuePlan {
	for _, q := range p.Queues {
		if q.Path == path {
			return q
		}
	}
	return QueuePlan{}
}

// The GPU case (Lee §4.4.2): Crypto 2× on the GPU node, Sort indifferent,
// equal slots. The plan homes crypto on gpu and keeps sort on the default
// partition; sort's PS is no lower than under 50/50.
func TestPlanGPUCase(t *testing.T) {
	in := PlanInput{
		Partitions: []PartitionSlots{{Name: "", Slots: map[string]int64{"cpu": 16}}, {Name: "gpu", Slots: map[string]int64{"gpu": 16}}},
		Queues: []QueueDemand{
			{Path: "root.crypto", Weight: 1, Demand: 200, Mix: map[string]float64{"crypto": 1}, Accessible: []string{"gpu"}},
			{Path: "root.sort", Weight: 1, Demand: 200, Mix: map[string]float64{"sort": 1}, Accessible: []string{"gpu"}},
		},
		Rates: RateMap{"crypto": {"cpu": 1, "gpu": 2}, "sort": {"cpu": 1, "gpu": 1}},
	}
	p := Plan(in)
	crypto, sort := find(p, "root.crypto"), find(p, "root.sort")
	if crypto.Home != "gpu" || sort.Home != "" {
		t.Fatalf("homes: crypto %q sort %q", crypto.Home, sort.Home)
	}
	if math.Abs(crypto.Capacity["gpu"]-100) > 1e-9 || math.Abs(sort.Capacity[""]-100) > 1e-9 {
		t.Fatalf("capacities: crypto %v sort %v", crypto.Capacity, sort.Capacity)
	}
	if sort.PS < 0.5-1e-9 || math.Abs(crypto.PS-2.0/3) > 1e-9 {
		t.Fatalf("PS crypto %v sort %v (50/50 gives 0.5 each)", crypto.PS, sort.PS)
	}
	if math.Abs(p.SumPS-p.Bound) > 1e-9 {
		t.Fatalf("ΣPS %v should reach the bound %v here", p.SumPS, p.Bound)
	}
	for _, part := range []string{"", "gpu"} {
		if math.Abs(sumCap(p, part)-100) > 1e-6 {
			t.Fatalf("partition %q capacities sum to %v", part, sumCap(p, part))
		}
	}
	if crypto.Reason == "" || sort.Reason == "" {
		t.Fatal("reasons missing")
	}
}

// Lee's toy as partitions: N1 (2 slots) labelled, N2 (4 slots) default; A 3×
// on N1. The plan reaches the ΣPS upper bound 0.6 + 4/6 = 1.267.
func TestPlanLeeToyReachesBound(t *testing.T) {
	in := PlanInput{
		Partitions: []PartitionSlots{{Name: "", Slots: map[string]int64{"N2": 4}}, {Name: "n1", Slots: map[string]int64{"N1": 2}}},
		Queues: []QueueDemand{
			{Path: "root.a", Weight: 1, Demand: 100, Mix: map[string]float64{"A": 1}, Accessible: []string{"n1"}},
			{Path: "root.b", Weight: 1, Demand: 100, Mix: map[string]float64{"B": 1}, Accessible: []string{"n1"}},
		},
		Rates: RateMap{"A": {"N1": 3, "N2": 1}, "B": {"N1": 1, "N2": 1}},
	}
	p := Plan(in)
	if math.Abs(p.SumPS-(0.6+4.0/6)) > 1e-9 || math.Abs(p.Bound-p.SumPS) > 1e-9 {
		t.Fatalf("ΣPS %v bound %v, want 1.267 for both", p.SumPS, p.Bound)
	}
	if find(p, "root.a").Home != "n1" {
		t.Fatalf("A should live on N1: %+v", find(p, "root.a"))
	}
}

func TestPlanIdleQueueAndUnknownRates(t *testing.T) {
	in := PlanInput{
		Partitions: []PartitionSlots{{Name: "", Slots: map[string]int64{"cpu": 10}}, {Name: "gpu", Slots: map[string]int64{"gpu": 10}}},
		Queues: []QueueDemand{
			{Path: "root.busy", Weight: 1, Demand: 50, Mix: map[string]float64{"new": 1}, Accessible: []string{"gpu"}},
			{Path: "root.idle", Weight: 1, Demand: 0, Accessible: []string{"gpu"}},
		},
		Rates: RateMap{},
	}
	p := Plan(in)
	busy := find(p, "root.busy")
	if len(busy.Uncalibrated) != 2 {
		t.Fatalf("unknown rates not reported: %+v", busy)
	}
	if busy.Capacity[""] < 99 {
		t.Fatalf("the busy queue should hold the default partition: %v", busy.Capacity)
	}
	for _, part := range []string{"", "gpu"} {
		if math.Abs(sumCap(p, part)-100) > 1e-6 {
			t.Fatalf("partition %q sums to %v", part, sumCap(p, part))
		}
	}
}

// A class measured on the CPU nodes but never on the idle GPU partition is
// sent there to be measured (Lee's calibration share); once measured, the
// plan decides on the rates.
func TestPlanCalibrationShare(t *testing.T) {
	parts := []PartitionSlots{{Name: "", Slots: map[string]int64{"cpu": 40}}, {Name: "gpu", Slots: map[string]int64{"gpu": 10}}}
	queues := []QueueDemand{
		{Path: "root.etl", Weight: 1, Demand: 30, Mix: map[string]float64{"sort": 1}, Accessible: []string{"gpu"}},
		{Path: "root.ml", Weight: 1, Demand: 8, Mix: map[string]float64{"train": 1}, Accessible: []string{"gpu"}},
	}
	cases := []struct {
		name     string
		rates    RateMap
		sampled  bool // ml's calibration maps ran; its rates wait for history
		wantHome string
		calib    bool
		etlHome  string
		maxCal   int64 // CalibrationMaxContainers
	}{
		{"gpu unmeasured: smallest queue calibrates", RateMap{"sort": {"cpu": 1}, "train": {"cpu": 1}}, false, "gpu", true, "", 0},
		{"gpu unmeasured, ml's sample already ran: not sent again (etl calibrates)", RateMap{"sort": {"cpu": 1}, "train": {"cpu": 1}}, true, "", false, "gpu", 0},
		{"gpu measured slow: ml stays", RateMap{"sort": {"cpu": 1, "gpu": 1}, "train": {"cpu": 1, "gpu": 0.5}}, false, "", false, "", 0},
		{"gpu measured fast: ml moves on rates", RateMap{"sort": {"cpu": 1, "gpu": 1}, "train": {"cpu": 1, "gpu": 4}}, false, "gpu", false, "", 0},
		{"gpu measured fast, sampled: the rates decide", RateMap{"sort": {"cpu": 1, "gpu": 1}, "train": {"cpu": 1, "gpu": 4}}, true, "gpu", false, "", 0},
		// A bounded sample (issue 32): etl's 30 containers of demand are
		// over the bound, so once ml's sample ran nobody is sent.
		{"bound 16: ml (8) calibrates", RateMap{"sort": {"cpu": 1}, "train": {"cpu": 1}}, false, "gpu", true, "", 16},
		{"bound 16, ml sampled: etl (30) is not sent", RateMap{"sort": {"cpu": 1}, "train": {"cpu": 1}}, true, "", false, "", 16},
		{"bound 4: ml (8) is not sent either", RateMap{"sort": {"cpu": 1}, "train": {"cpu": 1}}, false, "", false, "", 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			qs := slices.Clone(queues)
			qs[1].Sampled = c.sampled
			p := Plan(PlanInput{Partitions: parts, Queues: qs, Rates: c.rates, CalibrationMaxContainers: c.maxCal})
			ml := find(p, "root.ml")
			if ml.Home != c.wantHome || (ml.Calibrating != "") != c.calib {
				t.Fatalf("ml: home %q calibrating %q, want home %q calibrating %v (%s)", ml.Home, ml.Calibrating, c.wantHome, c.calib, ml.Reason)
			}
			if got := find(p, "root.etl").Home; got != c.etlHome {
				t.Fatalf("etl: home %q, want %q", got, c.etlHome)
			}
		})
	}
}
