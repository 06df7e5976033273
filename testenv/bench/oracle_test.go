package main

import (
	"math"
	"testing"
)

// The worked bound for lee-gpu: Crypto 2x on the GPU node, equal
// work — the GPU job can fall at most to 0.75x of slot-fair, Sort to 0.90x.
func TestOracleLeeGPU(t *testing.T) {
	r, err := oracleRatios("lee-gpu")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{"crypto": 0.75, "sort": 0.90} {
		if math.Abs(r[name]-want) > 1e-9 {
			t.Errorf("%s: oracle ratio %.4f, want %.2f", name, r[name], want)
		}
	}
}
