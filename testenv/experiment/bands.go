package experiment

import (
	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// BandChecker checks every plan of a steered run against the admin's
// guarantee bands around the scenario's own configuration (what the
// sidecar first saw), and, unless the config lets the sidecar raise them,
// against the admin's maximum-capacity ceilings. Use Check as
// SidecarOptions.OnCycle.
type BandChecker struct {
	First      map[string]sidecar.SeenValue
	Bands      sidecar.GuaranteeBands
	Ceilings   bool // check ceilings (safety.raise_maximum_capacity off)
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
	return &BandChecker{First: first, Bands: cfg.Bands(), Ceilings: !cfg.Safety.RaiseMaximumCapacity}, nil
}

// Check is an OnCycle hook.
func (b *BandChecker) Check(rep sidecar.CycleReport) {
	if rep.Plan == nil || len(rep.Plan.Changes) == 0 {
		return
	}
	b.Plans++
	b.Violations = append(b.Violations, decide.BandViolations(rep.Plan, b.First, b.Bands)...)
	if b.Ceilings {
		b.Violations = append(b.Violations, decide.CeilingViolations(rep.Plan, b.First)...)
	}
}
