package sim

import (
	"strings"
	"testing"
	"time"
)

// hetero-100-tight: the same jobs as hetero-100 with its seed, goals only
// on the tagged quarter, each 1.1–1.5× the job's stand-alone time.
func TestTightHetero(t *testing.T) {
	sc, err := LoadScenario("hetero-100-tight")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := LoadScenario("hetero-100")
	c, _ := NewCluster(base, base.Seed)
	if len(sc.Jobs) != len(c.Specs()) || len(sc.Generators) != 0 {
		t.Fatalf("%d jobs, %d generators; want hetero-100's %d jobs expanded", len(sc.Jobs), len(sc.Generators), len(c.Specs()))
	}
	goals := 0
	for _, j := range sc.Jobs {
		for _, tag := range j.Tags {
			v, ok := strings.CutPrefix(tag, "deadline=+")
			if !ok {
				continue
			}
			goals++
			d, err := time.ParseDuration(v)
			if err != nil {
				t.Fatal(err)
			}
			alone, err := StandAlone(base, j, base.Seed)
			if err != nil {
				t.Fatal(err)
			}
			if r := d.Seconds() / alone.Seconds(); r < 1.09 || r > 1.51 {
				t.Errorf("%s: goal %v is %.2f× its stand-alone %v, want 1.1–1.5×", j.Name, d, r, alone)
			}
		}
	}
	if goals < len(sc.Jobs)/6 || goals > len(sc.Jobs)/3 {
		t.Errorf("%d goals over %d jobs, want about a quarter", goals, len(sc.Jobs))
	}
}
