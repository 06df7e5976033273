package deadline

import "math"

// PhaseAlone bounds one phase of n tasks (mean mu, longest lambda, seconds)
// on k slots that are all free when the phase starts — a job running alone,
// as in the deadline bench's bound rows. Upper: Malekimajd Prop. 2.1,
// (nμ−λ)/k + λ (digest 001 §1.2; tighter than ARIA by (λ−μ)/k, erratum E2).
// Prop. 2.5's shared-cluster bound adds another λ for a predecessor that
// still holds the slots; with nobody holding them that wait does not exist.
// Lower: ARIA's nμ/k, but never below the longest task, which must run
// whole (the paper's nμ/k alone falls far short when n < k, e.g. 8 reduces
// on 63 containers).
func PhaseAlone(n, mu, lambda, k float64) (low, up float64) {
	if n <= 0 || k <= 0 {
		return 0, 0
	}
	low = math.Max(n*mu/k, lambda)
	up = math.Max((n*mu-lambda)/k+lambda, low)
	return low, up
}

// AloneTimes are the lower, upper and averaged (eq. 3) times in seconds of
// a job of this profile running alone on s containers: the map phase, the
// first shuffle's non-overlapping part (Sh¹ avg/max), then the reduces,
// each a typical shuffle plus its reduce, as one phase (digest 001 §1.5).
func (p Profile) AloneTimes(s float64) (low, up, avg float64) {
	ml, mu := PhaseAlone(float64(p.NM), p.MapAvg, p.MapMax, s)
	rl, ru := PhaseAlone(float64(p.NR), p.ShAvg+p.ReduceAvg, p.ShMax+p.ReduceMax, s)
	low = ml + p.Sh1Avg + rl
	up = mu + p.Sh1Max + ru
	if p.NR == 0 {
		low, up = ml, mu
	}
	return low, up, (low + up) / 2
}
