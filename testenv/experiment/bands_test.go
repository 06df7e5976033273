package experiment

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// BandChecker checks every plan of a steered run against the admin's
// guarantee bands around the scenario's own configuration (what the
// sidecar first saw). Use Check as SidecarOptions.OnCycle.
type BandChecker struct {
	First      map[string]sidecar.SeenValue
	Bands      sidecar.GuaranteeBands
	Plans      int
	Violations []string
}

// NewBandChecker baselines on the scenario's configuration.
func NewBandChecker(scenario string, cfg *sidecar.Config) (*BandChecker, error) {
	sc, err := sim.LoadScenario(scenario)
	if err != nil {
		return nil, err
	}
	tree, err := schedconf.ParseTree(schedconf.Conf(sc.Conf))
	if err != nil {
		return nil, err
	}
	first, err := (&sidecar.FirstSeen{}).Observe(tree)
	if err != nil {
		return nil, err
	}
	return &BandChecker{First: first, Bands: cfg.Bands()}, nil
}

// Check is an OnCycle hook.
func (b *BandChecker) Check(rep sidecar.CycleReport) {
	if rep.Plan == nil || len(rep.Plan.Changes) == 0 {
		return
	}
	b.Plans++
	b.Violations = append(b.Violations, sidecar.BandViolations(rep.Plan, b.First, b.Bands)...)
}

// Issue 15: the sidecar never writes a guarantee outside its band, in any
// mode, on any partition — checked on every plan of the benchmark
// scenarios that fit the test budget (the trees bench row checks every
// steering scenario, hetero-100 and fb-2009 included).
func TestGuaranteesHoldOnEveryPlan(t *testing.T) {
	for _, scenario := range []string{"lee-gpu", "lee-toy", "nested-weights", "nested-absolute"} {
		t.Run(scenario, func(t *testing.T) {
			if testing.Short() && scenario != "lee-gpu" {
				t.Skip("short")
			}
			cfg, _ := sidecar.ParseConfig(nil)
			cfg.Mode = sidecar.ModeApply
			bc, err := NewBandChecker(scenario, cfg)
			if err != nil {
				t.Fatal(err)
			}
			res, err := RunSidecar(scenario, 1, SidecarOptions{WarmupSeed: 101, Config: cfg, MCSamples: 20, OnCycle: bc.Check})
			if err != nil {
				t.Fatal(err)
			}
			if bc.Plans == 0 || res.Applied == 0 {
				t.Fatalf("no plan was made (%d plans, %d applied): nothing was checked", bc.Plans, res.Applied)
			}
			for _, v := range bc.Violations {
				t.Error(v)
			}
			t.Logf("%d plans, %d applied, checked against the bands", bc.Plans, res.Applied)
		})
	}
}
