package deadline

import (
	"math"
	"sort"
)

// Recalibration holds, per outlook key and stage, the probability
// integral transforms (PITs) of finished jobs' outlooks: u = F(actual
// remaining time) under the distribution F the report gave when it
// predicted. A calibrated F makes u uniform; when it is not (the class's
// residuals drift, or the Monte-Carlo's spread is off), the empirical CDF
// G of the past u's maps a new F to G∘F, which is calibrated on those
// runs (Kuleshov, Fenner & Ermon 2018, "Accurate uncertainties for deep
// learning using calibrated regression", §3, the regression form of
// isotonic recalibration: Zadrozny & Elkan 2002; Niculescu-Mizil &
// Caruana 2005). Only outcomes known when a prediction is made enter it.
type Recalibration struct {
	by windows
	// Max bounds each key and stage (oldest first out); MinN is the fewest
	// PITs that replace the identity.
	Max, MinN int
}

// Default bounds of Recalibration: a map from fewer than 20 outcomes
// would move P(meet) by one run's luck.
const (
	DefaultRecalMax  = 60
	DefaultRecalMinN = 20
)

// NewRecalibration returns an empty set with the default bounds.
func NewRecalibration() *Recalibration {
	return &Recalibration{Max: DefaultRecalMax, MinN: DefaultRecalMinN}
}

// RecalKeyOf is the key an outlook's PITs are kept under: its residual
// key, or for outlooks without residuals (a class's first runs, the
// Monte-Carlo's own spread, too sharp in every class) RawRecalKey, one
// set for all classes, as no class has enough of them alone.
func RecalKeyOf(residualKey string, residuals int) string {
	if residuals == 0 {
		return RawRecalKey
	}
	return residualKey
}

// RawRecalKey keeps the PITs of outlooks without residuals.
const RawRecalKey = "#raw"

// Add appends one PIT u (0..1) of key at stage; others are dropped.
func (r *Recalibration) Add(key string, stage int, u float64) {
	if r == nil || !(u >= 0 && u <= 1) || stage <= 0 {
		return
	}
	limit := r.Max
	if limit <= 0 {
		limit = DefaultRecalMax
	}
	r.by.add(key, stage, u, limit)
}

// Of is the sorted PITs of key at stage, nil when fewer than MinN (the
// outlook is left as it is).
func (r *Recalibration) Of(key string, stage int) []float64 {
	if r == nil || r.by == nil {
		return nil
	}
	minN := r.MinN
	if minN <= 0 {
		minN = DefaultRecalMinN
	}
	s := r.by[key][stage]
	if len(s) < minN {
		return nil
	}
	out := append([]float64(nil), s...)
	sort.Float64s(out)
	return out
}

// Recalibrated is G(p): the smoothed empirical CDF of the sorted PITs at
// p, piecewise linear through (0, 0), (u_k, k/(n+1)) and (1, 1), so
// monotone and never certain from a finite history.
func Recalibrated(p float64, pits []float64) float64 {
	n := len(pits)
	if n == 0 {
		return p
	}
	p = math.Min(1, math.Max(0, p))
	k := sort.SearchFloat64s(pits, p) // pits[k-1] < p ≤ pits[k]
	lo, plo := pitKnot(pits, k)
	hi, phi := pitKnot(pits, k+1)
	if hi-lo < 1e-12 {
		return phi
	}
	return plo + (phi-plo)*(p-lo)/(hi-lo)
}

// pitKnot is the k-th knot (PIT, G) of G's piecewise-linear graph, from
// (0, 0) through (pits[k-1], k/(n+1)) to (1, 1) at k = n+1; Recalibrated
// and its inverse read the same knots from either side.
func pitKnot(pits []float64, k int) (pit, g float64) {
	switch {
	case k <= 0:
		return 0, 0
	case k > len(pits):
		return 1, 1
	}
	return pits[k-1], float64(k) / float64(len(pits)+1)
}

// recalibratedInverse is G⁻¹(q), for the recalibrated quantiles.
func recalibratedInverse(q float64, pits []float64) float64 {
	n := len(pits)
	if n == 0 {
		return q
	}
	q = math.Min(1, math.Max(0, q))
	k := min(int(math.Floor(q*float64(n+1))), n) // k/(n+1) ≤ q < (k+1)/(n+1)
	lo, plo := pitKnot(pits, k)
	hi, phi := pitKnot(pits, k+1)
	if phi-plo < 1e-12 {
		return hi
	}
	return lo + (hi-lo)*(q-plo)/(phi-plo)
}
