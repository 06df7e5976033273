package deadline

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
)

// Pooled is the residuals (ratios) that calibrate an outlook of a class
// with fewer than below (at least MinN) residuals of its own at its
// stage. Below MinN, Of gives nil and the model's own Monte-Carlo spread
// is far too sharp (17 points off in P(meet) on hetero-100, the bench's
// diagnostic row). Pooled borrows the spread of the classes that have
// MinN (donors, of the same Mondrian category, ResidualKeyOf) and
// partially pools the location (empirical Bayes: Efron & Morris 1975;
// Gelman & Hill 2007, §12.2): on log ratios, each donor's residuals
// centred on its own median, all put at
//
//	μ̂ = z·m_c + (1 − z)·m₀,  z = n/(n + below)
//
// with m_c the median of the class's own n residuals, m₀ the median of
// the donors' medians, and z the credibility of n runs (Bühlmann's
// n/(n+k), k = below: the class's own runs weigh half at the count
// where they replace the pool). The class's few runs move the centre but
// not the spread, which so few cannot estimate well. Nil when no class
// has MinN at the stage (the model's own spread stays) or the class has
// below of its own.
func (r *Residuals) Pooled(key string, stage, below int) []float64 {
	return r.pooled(key, stage, below, false)
}

// PooledEB is Pooled with the credibility constant estimated from the
// donors instead of fixed at below, as in the normal hierarchical model
// behind partial pooling (log ratios of class c ~ N(θ_c, σ²), θ_c ~
// N(m₀, τ²); Morris 1983, parametric empirical Bayes): k = σ²/τ², with
// σ² the donors' within-class variance ((1.4826·MAD)² of the centred
// deviations) and τ² the variance of the donors' medians less their own
// sampling variance ((π/2)·σ²/n_d), positive part (τ² = 0 pools the
// centre completely). Classes far apart (large τ²) keep more of their
// own centre; k stays below with fewer than two donors. The deviations
// are also widened by the centre's own uncertainty, the predictive
// variance σ² + σ²/(n+k) of a new run of the class.
func (r *Residuals) PooledEB(key string, stage, below int) []float64 {
	return r.pooled(key, stage, below, true)
}

func (r *Residuals) pooled(key string, stage, below int, eb bool) []float64 {
	if r == nil || r.by == nil {
		return nil
	}
	below = max(below, r.minN())
	if len(r.by[key][stage]) >= below {
		return nil
	}
	typed := strings.HasSuffix(key, TypedReducesSuffix)
	var devs, medians, ns []float64
	for _, k := range slices.Sorted(maps.Keys(r.by)) {
		s := r.by[k][stage]
		if k == key || len(s) < r.minN() || strings.HasSuffix(k, TypedReducesSuffix) != typed {
			continue
		}
		logs := logsOf(s)
		m := calibrate.Median(logs)
		medians = append(medians, m)
		ns = append(ns, float64(len(logs)))
		for _, l := range logs {
			devs = append(devs, l-m)
		}
	}
	if len(medians) == 0 {
		return nil
	}
	centre := calibrate.Median(medians)
	k, widen := float64(below), 1.0
	own := logsOf(r.by[key][stage])
	if eb {
		k = credibilityK(devs, medians, ns, k)
		widen = math.Sqrt(1 + 1/(float64(len(own))+k))
	}
	if len(own) > 0 {
		z := float64(len(own)) / (float64(len(own)) + k)
		centre = z*calibrate.Median(own) + (1-z)*centre
	}
	out := make([]float64, len(devs))
	for i, d := range devs {
		out[i] = math.Exp(centre + widen*d)
	}
	return out
}

// credibilityK is PooledEB's k = σ²/τ² (fallback with fewer than two
// donors or no within-class spread; +Inf when τ² ≤ 0).
func credibilityK(devs, medians, ns []float64, fallback float64) float64 {
	if len(medians) < 2 {
		return fallback
	}
	s := robustSigma(devs)
	sigma2 := s * s
	if sigma2 == 0 {
		return fallback
	}
	mean, noise := 0.0, 0.0
	for i, m := range medians {
		mean += m
		noise += math.Pi / 2 * sigma2 / ns[i]
	}
	mean /= float64(len(medians))
	noise /= float64(len(medians))
	v := 0.0
	for _, m := range medians {
		v += (m - mean) * (m - mean)
	}
	tau2 := v/float64(len(medians)-1) - noise
	if tau2 <= 0 {
		return math.Inf(1)
	}
	return sigma2 / tau2
}
