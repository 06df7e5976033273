package plan

import (
	"math"
	"sort"
)

// SafetyRules bound one cycle's capacity changes (USER-ASKS #5, #8).
type SafetyRules struct {
	// MaxStepPercent caps any capacity change in one cycle (percentage
	// points of the parent).
	MaxStepPercent float64
	// HysteresisPercent: a group whose largest change is below it is left alone.
	HysteresisPercent float64
	// FloorPercent returns the smallest percentage a queue may hold in a
	// partition it uses (one container's worth; YARN-11073). Nil = no floor.
	FloorPercent func(queue, partition string) float64
}

func (r SafetyRules) floorPercent(queue, partition string) float64 {
	if r.FloorPercent == nil {
		return 0
	}
	return r.FloorPercent(queue, partition)
}

// StepResult is the next capacities of one sibling group.
type StepResult struct {
	Next    map[string]float64
	Limited bool // the step limit scaled the change down
	Held    bool // hysteresis held the group at its current values
}

// LimitStep moves a sibling group's capacities from current toward want in
// one safe step. Floors are applied to want first (raising a queue to its
// floor takes the difference from queues above theirs, proportionally);
// then, if the largest change is under the hysteresis threshold nothing
// moves; if it is over the step limit every change is scaled by the same
// factor, which keeps the sum unchanged. Values are rounded to two decimals
// by largest remainder so the sum stays exactly what it was (100 in
// percentage mode — the Capacity Scheduler rejects anything else).
func LimitStep(current, want, floors map[string]float64, r SafetyRules) StepResult {
	target := ApplyFloors(want, floors)
	maxDelta := 0.0
	for q, w := range target {
		maxDelta = math.Max(maxDelta, math.Abs(w-current[q]))
	}
	res := StepResult{Next: map[string]float64{}}
	if maxDelta < r.HysteresisPercent || maxDelta == 0 {
		for q, c := range current {
			res.Next[q] = c
		}
		res.Held = maxDelta > 0
		return res
	}
	scale := 1.0
	if r.MaxStepPercent > 0 && maxDelta > r.MaxStepPercent {
		scale = r.MaxStepPercent / maxDelta
		res.Limited = true
	}
	raw := map[string]float64{}
	total := 0.0
	for q, c := range current {
		raw[q] = c + (target[q]-c)*scale
		total += c
	}
	res.Next = roundToSum(raw, Round2(total))
	return res
}

// applyFloors raises every queue with a floor to it, taking the difference
// from the queues above their floors in proportion to their excess.
func ApplyFloors(want, floors map[string]float64) map[string]float64 {
	out := map[string]float64{}
	deficit := 0.0
	for q, w := range want {
		out[q] = w
		if f := floors[q]; w < f {
			deficit += f - w
			out[q] = f
		}
	}
	if deficit == 0 {
		return out
	}
	excess := 0.0
	for q, w := range out {
		if e := w - floors[q]; e > 0 {
			excess += e
		}
	}
	if excess <= 0 {
		return out // floors cannot all be met; validation will say so
	}
	take := math.Min(1, deficit/excess)
	for q, w := range out {
		if e := w - floors[q]; e > 0 {
			out[q] = w - e*take
		}
	}
	return out
}

// roundToSum rounds values to two decimals so they add up to sum exactly
// (largest-remainder method, deterministic tie-break by name).
func roundToSum(v map[string]float64, sum float64) map[string]float64 {
	type rem struct {
		q string
		r float64
	}
	out := map[string]float64{}
	cents := int64(math.Round(sum * 100))
	var used int64
	var rems []rem
	for q, x := range v {
		c := math.Floor(x*100 + 1e-9)
		out[q] = c
		used += int64(c)
		rems = append(rems, rem{q, x*100 - c})
	}
	sort.Slice(rems, func(i, j int) bool {
		if rems[i].r != rems[j].r {
			return rems[i].r > rems[j].r
		}
		return rems[i].q < rems[j].q
	})
	for i := 0; used < cents && len(rems) > 0; i = (i + 1) % len(rems) {
		out[rems[i].q]++
		used++
	}
	for q := range out {
		out[q] /= 100
	}
	return out
}

func Round2(x float64) float64 { return math.Round(x*100) / 100 }
