package sidecar

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
	"gopkg.in/yaml.v3"
)

// Factor is a multiple of the admin's first-seen value, written "0.5x" or
// "2x" (a bare number is accepted too).
type Factor float64

// UnmarshalYAML accepts "0.5x", "2x" or 2.
func (f *Factor) UnmarshalYAML(n *yaml.Node) error {
	s := strings.TrimSuffix(strings.TrimSpace(n.Value), "x")
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a factor such as 0.5x or 2x", n.Line, n.Value)
	}
	*f = Factor(v)
	return nil
}

// GuaranteeConfig is the band within which the sidecar may move a queue's
// guaranteed capacity (or weight, or absolute resources), relative to what
// the admin configured when the sidecar first saw it (USER-ASKS: the
// capacities are promises to the teams). It holds in every mode and on
// every partition.
type GuaranteeConfig struct {
	// Min and Max are factors of the first-seen value (its share of the
	// parent): the sidecar writes between Min× and Max× of it.
	Min Factor `yaml:"min"`
	Max Factor `yaml:"max"`
	// Floor is an absolute floor, percent of the parent, under any band.
	Floor float64 `yaml:"floor"`
	// Pinned: the capacity is never changed.
	Pinned bool `yaml:"pinned"`
}

// Default band: 0.25x–4x of the admin's first-seen share of the parent.
// Measured on the steering scenarios (testenv/bench -only trees): the
// gains come from routing whole queues to the partition where their jobs
// run fastest and giving them most of it; with hetero-100's four equal
// 25% GPU shares, 4x lets one queue hold the whole GPU partition (as the
// best static configuration does), while 0.25x keeps every team at least a
// quarter of its promise (the 0.07% capacities of issue 15 are gone).
const (
	DefaultGuaranteeMin Factor = 0.25
	DefaultGuaranteeMax Factor = 4
)

func (g GuaranteeConfig) orDefault(def GuaranteeConfig) GuaranteeConfig {
	if g.Min == 0 {
		g.Min = def.Min
	}
	if g.Max == 0 {
		g.Max = def.Max
	}
	if g.Floor == 0 {
		g.Floor = def.Floor
	}
	return g
}

func (c *Config) defaultGuarantees() {
	if c.Guarantee.Min == 0 {
		c.Guarantee.Min = DefaultGuaranteeMin
	}
	if c.Guarantee.Max == 0 {
		c.Guarantee.Max = DefaultGuaranteeMax
	}
	if c.Rate.MinApplyInterval == 0 {
		c.Rate.MinApplyInterval = act.DefaultMinApplyInterval
	}
	if c.Rate.MaxMutationsPerHour == 0 {
		c.Rate.MaxMutationsPerHour = act.DefaultMaxMutationsPerHour
	}
	if c.Rate.MinGainPercent == nil {
		g := act.DefaultMinGainPercent
		c.Rate.MinGainPercent = &g
	}
}

func (c *Config) validateGuarantees(add func(path, format string, a ...any)) {
	check := func(path string, g GuaranteeConfig) {
		if g.Min < 0 || g.Min > 1 {
			add(path+".min", "must be in [0, 1] (a factor of the first-seen capacity such as 0.5x), got %gx", float64(g.Min))
		}
		if g.Max != 0 && g.Max < 1 {
			add(path+".max", "must be at least 1x, got %gx", float64(g.Max))
		}
		if g.Floor < 0 || g.Floor > 100 {
			add(path+".floor", "must be a percentage of the parent in [0, 100], got %g", g.Floor)
		}
	}
	check("guarantee", c.Guarantee)
	for q, qc := range c.Queues {
		if qc.Guarantee != nil {
			check("queues."+q+".guarantee", *qc.Guarantee)
		}
	}
	if c.Rate.MinApplyInterval < 0 {
		add("rate.min_apply_interval", "must not be negative, got %s", c.Rate.MinApplyInterval)
	}
	if c.Rate.MaxMutationsPerHour < 0 {
		add("rate.max_mutations_per_hour", "must not be negative, got %d", c.Rate.MaxMutationsPerHour)
	}
	if g := c.Rate.MinGainPercent; g != nil && *g < 0 {
		add("rate.min_gain_percent", "must not be negative, got %g", *g)
	}
}

// Bands returns each queue's guarantee band (per-queue settings over the
// default) as the decision's guarantee step takes them.
func (c *Config) Bands() GuaranteeBands {
	b := GuaranteeBands{Default: c.Guarantee.band(), Queues: map[string]decide.Guarantee{}}
	for q, qc := range c.Queues {
		g := c.Guarantee
		if qc.Guarantee != nil {
			g = qc.Guarantee.orDefault(c.Guarantee)
		}
		if qc.Pinned {
			g.Pinned = true
		}
		b.Queues[q] = g.band()
	}
	return b
}

// GuaranteeBands are the bands the decision keeps (sidecar/decide).
type GuaranteeBands = decide.GuaranteeBands

// band is the guarantee as the decision takes it: the same figures, free
// of the YAML factor syntax.
func (g GuaranteeConfig) band() decide.Guarantee {
	return decide.Guarantee{Min: float64(g.Min), Max: float64(g.Max), Floor: g.Floor, Pinned: g.Pinned}
}
