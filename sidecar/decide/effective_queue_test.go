package decide

import (
	"math"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/affinity"
	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
)

// The data-split layout by hand (issue 17): one class, scan, in two
// queues. A map reads a 128 MiB split and processes it in 1 s on storage,
// 0.4 s on compute (measured CPU, Tp). Measured bandwidth: 400 MiB/s
// node-local on storage, 300 rack-local and 40 off-switch on compute.
//
//	storage, node-local:        T = 1 + 128/400   = 1.32 s  (reference)
//	east on compute, rack-local: T = 0.4 + 128/300 = 0.8267 s → 1.32/0.8267 = 1.597
//	west on compute, off-switch: T = 0.4 + 128/40  = 3.6 s    → 1.32/3.6    = 0.3667
//	class (half each):           T = 0.4 + 128·(0.5/300 + 0.5/40) = 2.2133 s → 0.5964
//
// The CR table's 1.54, learned from elapsed times that mixed both
// queues' reads, is applied to neither queue.
func TestEffectiveRatesPerQueue(t *testing.T) {
	east, west := QueueClass("scan", "root.east"), QueueClass("scan", "root.west")
	loc := map[string]map[string]affinity.Locality{
		"scan": {"storage": {NodeLocal: 1}, "compute": {RackLocal: 0.5}},
		east:   {"storage": {NodeLocal: 1}, "compute": {RackLocal: 1}},
		west:   {"storage": {NodeLocal: 1}, "compute": {}},
		// Reads like the class as a whole: no note of its own.
		QueueClass("scan", "root.like"): {"storage": {NodeLocal: 1}, "compute": {RackLocal: 0.5}},
	}
	rc := ReadCost{
		Processing: map[string]calibrate.Processing{"scan": {Seconds: map[string]float64{"storage": 1, "compute": 0.4}, BlockMiB: 128}},
		Bandwidth: map[string]calibrate.ReadBandwidth{
			"storage": {NodeLocal: 400},
			"compute": {RackLocal: 300, OffSwitch: 40},
		},
	}
	base := progress.RateMap{"scan": {"storage": 1, "compute": 1.54}, "other": {"compute": 2}}
	rates, notes := EffectiveRates(base, func(string) string { return "storage" }, loc, rc)
	cases := []struct {
		name, key, typ string
		want           float64
		known          bool
	}{
		{"east reads rack-local on compute", east, "compute", 1.32 / (0.4 + 128.0/300), true},
		{"west reads off-switch on compute", west, "compute", 1.32 / 3.6, true},
		{"the class mixes both", "scan", "compute", 1.32 / (0.4 + 128*(0.5/300+0.5/40)), true},
		{"reference type", east, "storage", 1, true},
		{"a queue without block maps falls back to the class", QueueClass("scan", "root.other"), "compute", 1.32 / (0.4 + 128*(0.5/300+0.5/40)), true},
		{"a class without input falls back to the CR table", QueueClass("other", "root.east"), "compute", 2, true},
		{"nothing known", QueueClass("other", "root.east"), "storage", 0, false},
	}
	for _, c := range cases {
		got, ok := rates.Rate(c.key, c.typ)
		if ok != c.known || math.Abs(got-c.want) > 1e-3 {
			t.Errorf("%s: %.4f (%v), want %.4f (%v)", c.name, got, ok, c.want, c.known)
		}
	}
	if len(notes) != 3 {
		t.Errorf("want a note for the class and each queue reading apart from it, got %q", notes)
	}
}

// QueueRateKeys gives each queue's mix its own key only where the step
// rated that queue; it copies, never changes, its input.
func TestQueueRateKeys(t *testing.T) {
	rates := effectiveRates{cells: map[string]map[string]float64{
		QueueClass("scan", "root.east"): {"compute": 1.6},
		"crunch":                        {"compute": 2.9},
	}}
	in := []progress.QueueDemand{
		{Path: "root.east", Mix: map[string]float64{"scan": 3, "crunch": 1}},
		{Path: "root.west", Mix: map[string]float64{"scan": 2}},
	}
	cases := []struct {
		name  string
		rates progress.Rates
		want  []map[string]float64
	}{
		{"effective rates", rates, []map[string]float64{{QueueClass("scan", "root.east"): 3, "crunch": 1}, {"scan": 2}}},
		{"CR table only (affinity off)", progress.RateMap{}, []map[string]float64{{"scan": 3, "crunch": 1}, {"scan": 2}}},
	}
	for _, c := range cases {
		out := QueueRateKeys(in, c.rates)
		for i, q := range out {
			if len(q.Mix) != len(c.want[i]) {
				t.Errorf("%s: %s mix %v, want %v", c.name, q.Path, q.Mix, c.want[i])
			}
			for k, w := range c.want[i] {
				if q.Mix[k] != w {
					t.Errorf("%s: %s mix %v, want %v", c.name, q.Path, q.Mix, c.want[i])
				}
			}
		}
	}
	if _, ok := in[0].Mix["scan"]; !ok || len(in[0].Mix) != 2 {
		t.Errorf("input changed: %v", in[0].Mix)
	}
}

// The plan on the data-split layout: rated by class (what a CR table
// learned from elapsed times gives), east and west look alike and get the
// same home; rated per queue, east goes to the compute partition and west
// stays on storage.
func TestPlanRoutesQueuesByTheirOwnInput(t *testing.T) {
	east, west := QueueClass("scan", "root.east"), QueueClass("scan", "root.west")
	loc := map[string]map[string]affinity.Locality{
		"scan": {"storage": {NodeLocal: 1}, "compute": {RackLocal: 0.5}},
		east:   {"storage": {NodeLocal: 1}, "compute": {RackLocal: 1}},
		west:   {"storage": {NodeLocal: 1}, "compute": {}},
	}
	rc := ReadCost{
		Processing: map[string]calibrate.Processing{"scan": {Seconds: map[string]float64{"storage": 1, "compute": 0.4}, BlockMiB: 128}},
		Bandwidth:  map[string]calibrate.ReadBandwidth{"storage": {NodeLocal: 400}, "compute": {RackLocal: 300, OffSwitch: 40}},
	}
	parts := []progress.PartitionSlots{{Name: "", Slots: map[string]int64{"storage": 256}}, {Name: "fast", Slots: map[string]int64{"compute": 128}}}
	queues := []progress.QueueDemand{
		{Path: "root.east", Weight: 1, Demand: 400, Mix: map[string]float64{"scan": 1}, Accessible: []string{"fast"}},
		{Path: "root.west", Weight: 1, Demand: 400, Mix: map[string]float64{"scan": 1}, Accessible: []string{"fast"}},
	}
	homes := func(r progress.Rates) map[string]string {
		plan := progress.Plan(progress.PlanInput{Partitions: parts, Queues: QueueRateKeys(queues, r), Rates: r})
		out := map[string]string{}
		for _, q := range plan.Queues {
			out[q.Path] = q.Home
		}
		return out
	}
	base := progress.RateMap{"scan": {"storage": 1, "compute": 1.54}}
	byClass := homes(base)
	if byClass["root.east"] != byClass["root.west"] {
		t.Errorf("rated by class, east and west should look alike: %v", byClass)
	}
	perQueue, _ := EffectiveRates(base, func(string) string { return "storage" }, loc, rc)
	got := homes(perQueue)
	if got["root.east"] != "fast" || got["root.west"] != "" {
		t.Errorf("rated per queue: homes %v, want east on fast and west on the default partition", got)
	}
}
