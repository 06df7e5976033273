package main

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// Every member of the nested sweep is valid in each mode of the tree.
func TestNestedFamilyEachMode(t *testing.T) {
	for _, name := range []string{"nested-weights", "nested-percent", "nested-absolute"} {
		sc, err := sim.LoadScenario(name)
		if err != nil {
			t.Fatal(err)
		}
		fam, err := nestedFamily(sc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(fam) != 1+4*3+4 {
			t.Errorf("%s: %d configurations, want stock + 12 single routes + 4 pairs", name, len(fam))
		}
	}
}
