package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
)

// twoGenerations writes a history in which the one default node type
// (identical resources, no label) holds two CPU generations: crypto's maps
// take 60 s on cpu-old-NN and 40 s on cpu-new-NN (1.5×), ±5% by attempt.
func twoGenerations(t *testing.T, store string) {
	t.Helper()
	s, err := calibrate.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ss []calibrate.Sample
	add := func(prefix string, n int, sec float64) {
		for h := 1; h <= n; h++ {
			for i := 0; i < 5; i++ {
				jitter := 1 + 0.05*math.Sin(float64(7*h+3*i))
				ss = append(ss, calibrate.Sample{AttemptID: fmt.Sprintf("attempt_%s%02d_%d", prefix, h, i), JobID: "job_1", Class: "crypto",
					NodeType: "cpu-16c-64g", Host: fmt.Sprintf("%s%02d", prefix, h), Type: "MAP", Bytes: 128 << 20,
					Finish: time.Unix(int64(1000*h+i), 0), Elapsed: time.Duration(sec * jitter * float64(time.Second))})
			}
		}
	}
	add("cpu-old-", 12, 60)
	add("cpu-new-", 6, 40)
	if _, err := s.Add(ss); err != nil {
		t.Fatal(err)
	}
}

// calibrate and status say when one node type's hosts run a class at two
// speeds, and which node_types rules would describe them (issue 35).
func TestNodeTypeSplitSaid(t *testing.T) {
	wantRules := `node_types: [{name: cpu-16c-64g-fast, host_pattern: "cpu-new-*"}, {name: cpu-16c-64g-slow, host_pattern: "cpu-old-*"}]`
	t.Run("calibrate", func(t *testing.T) {
		dir := t.TempDir()
		store := filepath.Join(dir, "history.db")
		twoGenerations(t, store)
		cfg := filepath.Join(dir, "sidecar.yaml")
		if err := os.WriteFile(cfg, []byte("store: "+store+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		out := runStatusCLI(t, "calibrate", "--config", cfg)
		for _, s := range []string{"Node types: hosts of one type run a class at clearly different speeds",
			"node type cpu-16c-64g: class crypto runs 1.50× faster on 6 host(s) (cpu-new-*) than on 12 (cpu-old-*)", wantRules} {
			if !strings.Contains(out, s) {
				t.Errorf("calibrate lacks %q:\n%s", s, out)
			}
		}
	})
	t.Run("status", func(t *testing.T) {
		cfg, _ := statusCluster(t)
		twoGenerations(t, filepath.Join(filepath.Dir(cfg), "history.db"))
		out := runStatusCLI(t, "status", "--config", cfg)
		for _, s := range []string{"class crypto runs 1.50× faster", wantRules} {
			if !strings.Contains(out, s) {
				t.Errorf("status lacks %q:\n%s", s, out)
			}
		}
	})
}
