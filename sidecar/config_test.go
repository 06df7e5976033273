package sidecar

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
)

func TestShippedConfigsParse(t *testing.T) {
	for _, name := range []string{"sidecar.example.yaml", "sidecar.compose.yaml"} {
		t.Run(name, func(t *testing.T) {
			c, err := LoadConfig(filepath.Join("..", "configs", name))
			if err != nil {
				t.Fatalf("LoadConfig: %v", err)
			}
			if c.Mode != act.ModeDryRun {
				t.Errorf("shipped mode = %q, want dry-run", c.Mode)
			}
		})
	}
}

func TestConfigValidationListsEveryBadField(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		want []string
	}{
		{"empty is all defaults", "", nil},
		{"bad mode", "mode: yolo\n", []string{"mode:"}},
		{"several bad fields", "mode: apply\nrm: [rm1:8088]\nsafety: {max_step_percent: 150}\ndeadlines: {confidence: 1.5}\n",
			[]string{"rm[0]:", "safety.max_step_percent:", "deadlines.confidence:"}},
		{"queue not a path", "queues: {crypto: {weight: 1}}\n", []string{"queues.crypto:"}},
		{"node type without matcher", "node_types: [{name: gpu}]\n", []string{"node_types[0]:"}},
		{"job class key", "job_class: {by: color}\n", []string{"job_class.by:"}},
		{"slot sizes", "slot: {memory_mb: -512, vcores: -1}\n", []string{"slot.memory_mb:", "slot.vcores:"}},
		{"slot vcores without memory", "slot: {vcores: 2}\n", []string{"slot.memory_mb:"}},
		{"a slot override", "slot: {memory_mb: 3072, vcores: 2}\n", nil},
		{"spark history server", "spark: {enabled: true, history_server: \"ftp://hs:1\"}\n", []string{"spark.history_server:"}},
		{"spark history server without spark", "spark: {history_server: \"hs:18080\"}\n", []string{"spark.history_server:"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tc.yaml))
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("want *ConfigError, got %v", err)
			}
			if len(ce.Fields) != len(tc.want) {
				t.Errorf("got %d bad fields %q, want %d", len(ce.Fields), ce.Fields, len(tc.want))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}

func TestConfigUnknownFieldNamesLine(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(p, []byte("mode: apply\nsafty: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadConfig(p)
	if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "safty") || !strings.Contains(err.Error(), p) {
		t.Fatalf("want an error naming file, line 2 and field safty, got %v", err)
	}
}

func TestPreemptionConfig(t *testing.T) {
	c, err := ParseConfig(nil)
	if err != nil || c.Preemption.MaxLostWorkPerCycle != 15*time.Second || c.Preemption.OnPurpose || c.Preemption.GainMargin != 2 {
		t.Fatalf("defaults: %+v %v", c.Preemption, err)
	}
	if !c.Preemption.Shield() {
		t.Fatalf("shield_steered_queues defaults to true")
	}
	if c, err := ParseConfig([]byte("preemption:\n  shield_steered_queues: false\n")); err != nil || c.Preemption.Shield() {
		t.Fatalf("shield_steered_queues: false not read: %v", err)
	}
	_, err = ParseConfig([]byte("preemption:\n  enabled: maybe\n  gain_margin: 0.5\n"))
	if err == nil || !strings.Contains(err.Error(), "preemption.enabled") || !strings.Contains(err.Error(), "preemption.gain_margin") {
		t.Fatalf("want both bad fields named, got %v", err)
	}
}

// node_listing_max_age: a duration, -1 (or any negative) for never reuse,
// unset for the default 5m; a bare positive number has no unit.
func TestNodeListingMaxAge(t *testing.T) {
	cases := []struct {
		yaml string
		want time.Duration
		bad  bool
	}{
		{"", 5 * time.Minute, false},
		{"node_listing_max_age: 2m\n", 2 * time.Minute, false},
		{"node_listing_max_age: -1\n", -1, false},
		{"node_listing_max_age: -1s\n", -1, false},
		{"node_listing_max_age: 0\n", 5 * time.Minute, false},
		{"node_listing_max_age: 300\n", 0, true},
		{"node_listing_max_age: soon\n", 0, true},
	}
	for _, tc := range cases {
		c, err := ParseConfig([]byte(tc.yaml))
		if tc.bad {
			if err == nil {
				t.Errorf("%q: accepted as %v", tc.yaml, c.NodeListingMaxAge.Duration())
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.yaml, err)
			continue
		}
		if got := c.NodeListingMaxAge.Duration(); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.yaml, got, tc.want)
		}
	}
}

// app_usage_max_age reads as node_listing_max_age does.
func TestAppUsageMaxAge(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		want time.Duration
		bad  bool
	}{
		{"", 5 * time.Minute, false},
		{"app_usage_max_age: 1m\n", time.Minute, false},
		{"app_usage_max_age: -1\n", -1, false},
		{"app_usage_max_age: 60\n", 0, true},
	} {
		c, err := ParseConfig([]byte(tc.yaml))
		if tc.bad != (err != nil) {
			t.Errorf("%q: err %v, want bad %v", tc.yaml, err, tc.bad)
			continue
		}
		if tc.bad {
			continue
		}
		if got := c.AppUsageMaxAge.Duration(); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.yaml, got, tc.want)
		}
	}
}

// The HDFS call budget is defaulted in the config, so the daemon's start
// line logs the 200 in force, not 0.
func TestHDFSMaxCallsDefaulted(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		want int
	}{
		{"hdfs: {enabled: true}\n", DefaultMaxNameNodeCalls},
		{"hdfs: {enabled: true, max_calls_per_cycle: 50}\n", 50},
	} {
		cfg, err := ParseConfig([]byte(tc.yaml))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.HDFS.MaxCallsPerCycle != tc.want {
			t.Errorf("%q: max_calls_per_cycle = %d, want %d", tc.yaml, cfg.HDFS.MaxCallsPerCycle, tc.want)
		}
	}
}
