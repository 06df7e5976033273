package sim

import (
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/internal/fuzzseed"
)

// FuzzParseScenario: scenario YAML (the shipped scenarios are the seeds)
// parses and validates, or fails with an error naming the source; a valid
// scenario builds a cluster without panicking.
func FuzzParseScenario(f *testing.F) {
	for _, b := range fuzzseed.Files(f, "scenarios/*.yaml") {
		f.Add(b)
	}
	f.Add([]byte("a: &a [*a, *a, *a, *a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseScenario(data, "fuzz.yaml")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.yaml") {
				t.Fatalf("error does not name the source: %v", err)
			}
			return
		}
		nodes := 0
		for _, nt := range sc.NodeTypes {
			nodes += nt.Count
		}
		if nodes > 200 || len(sc.Jobs) > 200 || len(sc.Generators) > 0 || sc.Racks > 50 {
			return // building a big cluster is slow, not wrong
		}
		for _, j := range sc.Jobs {
			if j.Maps > 2000 || j.Reduces > 200 || j.Repeat > 20 {
				return
			}
		}
		if _, err := NewCluster(sc, 1); err != nil && err.Error() == "" {
			t.Fatal("empty error")
		}
	})
}
