package deadline

import (
	"math"
	"testing"
)

// Reduces launched at slow-start hold their own containers: with the maps
// done and 8 reduces running on 8 containers, the job ends after about one
// reduce, not eight in a row on the one container left for maps.
func TestSimulateReducesOnTheirOwnContainers(t *testing.T) {
	m := PhaseModel{Map: LogNormal{Mu: math.Log(60), Sigma: 0.01}, Reduce: LogNormal{Mu: math.Log(30), Sigma: 0.01},
		Shuffle1: LogNormal{Mu: math.Log(5), Sigma: 0.01}, Shuffle2: LogNormal{Mu: math.Log(5), Sigma: 0.01}, HasReduce: true}
	got := Simulate(m, Work{Reduces: 8, ReduceHeld: 8}, 1, nil, 200, 1).Quantile(0.5)
	if got > 40 {
		t.Fatalf("8 running reduces on 8 containers: median %.0f s, want about one reduce (35 s)", got)
	}
	serial := Simulate(m, Work{Reduces: 8}, 1, nil, 200, 1).Quantile(0.5)
	if serial < 8*30 {
		t.Fatalf("8 reduces on one container: median %.0f s, want at least 240 s", serial)
	}
}
