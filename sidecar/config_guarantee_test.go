package sidecar

import (
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
)

func TestGuaranteeAndRateConfig(t *testing.T) {
	cfg, err := ParseConfig([]byte(`
guarantee: {min: 0.5x, max: 2x}
queues:
  root.prod.etl: {guarantee: {min: 0.8x, floor: 10}}
  root.dev: {pinned: true}
rate: {min_apply_interval: 5m, max_mutations_per_hour: 6}
`))
	if err != nil {
		t.Fatal(err)
	}
	b := cfg.Bands()
	for _, tc := range []struct {
		queue string
		want  decide.Guarantee
	}{
		{"root.other", decide.Guarantee{Min: 0.5, Max: 2}},
		{"root.prod.etl", decide.Guarantee{Min: 0.8, Max: 2, Floor: 10}}, // unset fields from the default
		{"root.dev", decide.Guarantee{Min: 0.5, Max: 2, Pinned: true}},
	} {
		if got := b.For(tc.queue); got != tc.want {
			t.Errorf("%s: band %+v, want %+v", tc.queue, got, tc.want)
		}
	}
	if cfg.Rate.MinApplyInterval != 5*time.Minute || cfg.Rate.MaxMutationsPerHour != 6 || *cfg.Rate.MinGainPercent != act.DefaultMinGainPercent {
		t.Errorf("rate = %+v", cfg.Rate)
	}
	def, _ := ParseConfig(nil)
	if def.Guarantee.Min != DefaultGuaranteeMin || def.Guarantee.Max != DefaultGuaranteeMax || def.Rate.MaxMutationsPerHour != act.DefaultMaxMutationsPerHour {
		t.Errorf("defaults: guarantee %+v rate %+v", def.Guarantee, def.Rate)
	}

	_, err = ParseConfig([]byte("guarantee: {min: 2x, max: 0.5x, floor: 120}\nrate: {max_mutations_per_hour: -1}\n"))
	for _, want := range []string{"guarantee.min", "guarantee.max", "guarantee.floor", "rate.max_mutations_per_hour"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bad config error %v does not name %s", err, want)
		}
	}
	if off, err := ParseConfig([]byte("rate: {min_gain_percent: 0}\n")); err != nil || *off.Rate.MinGainPercent != 0 {
		t.Errorf("min_gain_percent: 0 must turn the threshold off: %v", err)
	}
	if _, err := ParseConfig([]byte("guarantee: {min: half}\n")); err == nil || !strings.Contains(err.Error(), "0.5x") {
		t.Errorf("a factor that is not a number: %v", err)
	}
}
