package deadline

import (
	"math"
	"testing"
)

func TestPhaseAlone(t *testing.T) {
	for _, c := range []struct {
		name            string
		n, mu, lambda   float64
		k               float64
		wantLow, wantUp float64
	}{
		// Digest 001 §1.2: k=4, eight tasks of 10 then one of 40: the
		// greedy makespan is exactly U = 60 (ARIA's UB would be 66.67).
		{"Prop 2.1 tight instance", 9, 120.0 / 9, 40, 4, 40, 60},
		{"many waves", 200, 40, 60, 63, 200 * 40 / 63.0, (200*40-60)/63.0 + 60},
		{"fewer tasks than slots: the longest task bounds both", 8, 60, 80, 63, 80, (480-80)/63.0 + 80},
		{"one slot: serial", 5, 10, 20, 1, 50, 50},
		{"no tasks", 0, 10, 20, 4, 0, 0},
	} {
		low, up := PhaseAlone(c.n, c.mu, c.lambda, c.k)
		if math.Abs(low-c.wantLow) > 1e-9 || math.Abs(up-c.wantUp) > 1e-9 {
			t.Errorf("%s: got [%.3f, %.3f], want [%.3f, %.3f]", c.name, low, up, c.wantLow, c.wantUp)
		}
	}
}

// The worked profile of digest 001 §4.3 on 128 containers, alone: 400 maps
// in waves, Sh¹ 15/20 s, then 48 reduces of 90 s mean (max 135) in one
// wave, bounded below by the longest.
func TestAloneTimesWorkedProfile(t *testing.T) {
	p := Profile{NM: 400, MapAvg: 40, MapMax: 70, NR: 48, ShAvg: 60, ShMax: 90, ReduceAvg: 30, ReduceMax: 45, Sh1Avg: 15, Sh1Max: 20}
	low, up, avg := p.AloneTimes(128)
	wantLow := 400*40/128.0 + 15 + 135
	wantUp := (400*40-70)/128.0 + 70 + 20 + (48*90-135)/128.0 + 135
	if math.Abs(low-wantLow) > 1e-9 || math.Abs(up-wantUp) > 1e-9 || math.Abs(avg-(wantLow+wantUp)/2) > 1e-9 {
		t.Errorf("got %.2f/%.2f/%.2f, want %.2f/%.2f", low, up, avg, wantLow, wantUp)
	}
	if low > up {
		t.Errorf("low %.2f above up %.2f", low, up)
	}
}
