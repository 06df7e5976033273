package main

import (
	"testing"
	"time"
)

// The scale rows report the median of repeated measures, with the RM
// reading of the median run.
func TestRepeatedMedian(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name     string
		walls    []time.Duration
		heaps    []uint64
		wantWall time.Duration
		wantHeap uint64
		wantReq  int64 // the median-wall run's RM requests (its index+1)
		spread   string
	}{
		{"one", []time.Duration{2 * s}, []uint64{7}, 2 * s, 7, 1, ""},
		{"odd", []time.Duration{3 * s, 1 * s, 2 * s}, []uint64{5, 9, 1}, 2 * s, 5, 3, " (median; 1.00–3.00 s over 3)"},
		{"even takes the upper", []time.Duration{4 * s, 1 * s}, []uint64{2, 8}, 4 * s, 8, 1, " (median; 1.00–4.00 s over 2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r repeated
			for i := range tc.walls {
				if err := r.add(Measured{Wall: tc.walls[i], PeakHeap: tc.heaps[i]}, rmReading{Requests: int64(i + 1)}, nil); err != nil {
					t.Fatal(err)
				}
			}
			m, rm := r.median()
			if m.Wall != tc.wantWall || m.PeakHeap != tc.wantHeap || rm.Requests != tc.wantReq {
				t.Fatalf("median = %+v with RM %+v; want wall %s, heap %d, RM reading of run %d", m, rm, tc.wantWall, tc.wantHeap, tc.wantReq)
			}
			if got := r.spread(); got != tc.spread {
				t.Fatalf("spread = %q, want %q", got, tc.spread)
			}
		})
	}
}
