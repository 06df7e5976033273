package deadline

import (
	"errors"
	"math"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Profile is a job class's per-phase durations in seconds (Malekimajd §2.4,
// ARIA): counts, averages and maxima of map, first-wave shuffle, typical
// shuffle and reduce.
type Profile struct {
	NM, NR               int
	MapAvg, MapMax       float64
	Sh1Avg, Sh1Max       float64
	ShAvg, ShMax         float64
	ReduceAvg, ReduceMax float64
}

// ProfileFromAttempts builds a profile from a finished job's successful
// attempts. First-wave shuffles are those of reduces that started before the
// last map finished (digest 000 §5.2).
func ProfileFromAttempts(atts []cluster.Attempt) Profile {
	var p Profile
	var lastMap time.Time
	var maps, sh1, sh, red []float64
	for _, a := range atts {
		if a.Succeeded() && a.Type == cluster.TaskMap {
			maps = append(maps, a.Elapsed.Seconds())
			if a.FinishTime.After(lastMap) {
				lastMap = a.FinishTime
			}
		}
	}
	for _, a := range atts {
		if !a.Succeeded() || a.Type != cluster.TaskReduce {
			continue
		}
		shuffle := a.ShuffleElapsed.Seconds()
		if a.StartTime.Before(lastMap) {
			// First wave: only the shuffle after the map phase (ARIA).
			shuffle = math.Max(0, a.StartTime.Add(a.ShuffleElapsed).Sub(lastMap).Seconds())
			sh1 = append(sh1, shuffle)
		} else {
			sh = append(sh, shuffle)
		}
		red = append(red, (a.MergeElapsed + a.ReduceElapsed).Seconds())
	}
	p.NM, p.NR = len(maps), len(red)
	p.MapAvg, p.MapMax = avgMax(maps)
	p.Sh1Avg, p.Sh1Max = avgMax(sh1)
	p.ShAvg, p.ShMax = avgMax(sh)
	p.ReduceAvg, p.ReduceMax = avgMax(red)
	return p
}

func avgMax(x []float64) (float64, float64) {
	if len(x) == 0 {
		return 0, 0
	}
	s, m := 0.0, 0.0
	for _, v := range x {
		s += v
		m = math.Max(m, v)
	}
	return s / float64(len(x)), m
}

// Constants are A, B, C of T = A·h/s_M + B·h/s_R + C.
type Constants struct{ A, B, C float64 }

// Bounds returns the lower, upper and averaged constants (Malekimajd eqs.
// 1–4; digest 001 §1.5, with erratum E3's S_R and E7's guards: a negative
// A^up for a tiny job falls back to the phase bound 2·M_max).
func (p Profile) Bounds() (low, up, avg Constants) {
	nm, nr := float64(p.NM), float64(p.NR)
	low = Constants{A: nm * p.MapAvg, B: nr * (p.ShAvg + p.ReduceAvg), C: p.Sh1Avg - p.ShAvg}
	up = Constants{A: nm*p.MapAvg - 2*p.MapMax, B: nr*p.ShAvg - 2*p.ShMax + nr*p.ReduceAvg - 2*p.ReduceMax,
		C: 2*p.ShMax + p.Sh1Max + 2*p.MapMax + 2*p.ReduceMax}
	if up.A < 0 { // E7: tiny job; the upper bound is 2·M_max (in C already)
		up.A = 0
	}
	if up.B < 0 {
		up.B = 0
	}
	avg = Constants{A: (low.A + up.A) / 2, B: (low.B + up.B) / 2, C: (low.C + up.C) / 2}
	return low, up, avg
}

// Time is T = A·h/s_M + B·h/s_R + C in seconds (h concurrent jobs of the
// class sharing s_M map and s_R reduce containers).
func (c Constants) Time(h, sM, sR float64) float64 {
	t := c.C
	if sM > 0 {
		t += c.A * h / sM
	}
	if sR > 0 {
		t += c.B * h / sR
	}
	return t
}

// ErrInfeasible: the deadline is not after C, so no capacity meets it.
var ErrInfeasible = errors.New("deadline not reachable at any capacity (D ≤ C)")

// ContainersFor inverts the bound for YARN's single container pool
// (s_M = s_R = s; digest 001 §5.3(b)): s = (A+B)·h/(D−C).
func (c Constants) ContainersFor(h, deadlineSeconds float64) (float64, error) {
	k := deadlineSeconds - c.C
	if k <= 0 {
		return 0, ErrInfeasible
	}
	return (c.A + c.B) * h / k, nil
}
