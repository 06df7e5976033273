package progress

import (
	"math"
	"testing"
)

// Lee Figs. 4.4–4.7 (digest 000 §1.3): N1 has 2 slots, N2 has 4; job A runs
// 3× faster on N1, B is indifferent. Each row is eq. 4.1 for both jobs.
func TestProgressShareWorkedExample(t *testing.T) {
	slots := map[string]int{"N1": 2, "N2": 4}
	crA := map[string]float64{"N1": 3, "N2": 1}
	crB := map[string]float64{"N1": 1, "N2": 1}
	cases := []struct {
		name         string
		a, b         map[string]int
		psA, psB, ps float64
	}{
		{"A: N1,N1,N2 / B: N2,N2,N2", map[string]int{"N1": 2, "N2": 1}, map[string]int{"N2": 3}, 0.7, 0.5, 1.2},
		{"A: N1,N2,N2 / B: N1,N2,N2", map[string]int{"N1": 1, "N2": 2}, map[string]int{"N1": 1, "N2": 2}, 0.5, 0.5, 1.0},
		{"slot-fair, A under-served (Fig. 4.6)", map[string]int{"N2": 3}, map[string]int{"N1": 2, "N2": 1}, 0.3, 0.5, 0.8},
		{"PS-based (Fig. 4.7)", map[string]int{"N1": 2}, map[string]int{"N2": 4}, 0.6, 4.0 / 6, 0.6 + 4.0/6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := SlotShare(tc.a, slots, crA), SlotShare(tc.b, slots, crB)
			if math.Abs(a-tc.psA) > 1e-9 || math.Abs(b-tc.psB) > 1e-9 || math.Abs(a+b-tc.ps) > 1e-9 {
				t.Fatalf("PS(A)=%v PS(B)=%v ΣPS=%v, want %v %v %v", a, b, a+b, tc.psA, tc.psB, tc.ps)
			}
		})
	}
}

func TestJain(t *testing.T) {
	cases := []struct {
		x    []float64
		want float64
	}{{[]float64{1, 1, 1}, 1}, {[]float64{1, 0}, 0.5}, {nil, 1}}
	for _, tc := range cases {
		if got := Jain(tc.x); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Jain(%v)=%v, want %v", tc.x, got, tc.want)
		}
	}
}
