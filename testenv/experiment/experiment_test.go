package experiment

import (
	"testing"
)

// The GPU case end to end (Lee §4.4.2): the sidecar, learning rates from a
// previous day's run and acting through the REST API, makes the GPU-capable
// job faster than under stock capacities without making Sort slower.
func TestLeeGPUSidecarBeatsStock(t *testing.T) {
	stock, err := RunStatic("lee-gpu", 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	steered, err := RunSidecar("lee-gpu", 3, SidecarOptions{WarmupSeed: 103})
	if err != nil {
		t.Fatal(err)
	}
	s, d := stock.ByName(), steered.ByName()
	t.Logf("stock %v sidecar %v applied %d cycles %d", s, d, steered.Applied, steered.Cycles)
	if steered.Applied == 0 {
		t.Fatal("the sidecar applied no plan")
	}
	if d["crypto"] >= s["crypto"] {
		t.Errorf("crypto: sidecar %v not faster than stock %v", d["crypto"], s["crypto"])
	}
	if float64(d["sort"]) > 1.02*float64(s["sort"]) {
		t.Errorf("sort: sidecar %v slower than stock %v", d["sort"], s["sort"])
	}
}
