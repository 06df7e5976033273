package deadline

import (
	"math"
	"sort"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
)

// Pooled is the residuals (ratios) that calibrate an outlook of a class
// with fewer than MinN residuals at its stage (Of gives nil), where the
// model's own Monte-Carlo spread is far too sharp (17 points off in
// P(meet) on hetero-100, the bench's diagnostic row). They borrow the
// spread of the classes that have MinN (donors, of the same Mondrian
// category, ResidualKeyOf) and partially pool the location (partial
// pooling, empirical Bayes: Efron & Morris 1975; Gelman & Hill 2007,
// §12.2): on log ratios, each donor's residuals centred on its own
// median, all put at
//
//	μ̂ = z·m_c + (1 − z)·m₀,  z = n/(n + MinN)
//
// with m_c the median of the class's own n residuals, m₀ the median of
// the donors' medians, and z the credibility of n runs (Bühlmann's
// n/(n+k), with k = MinN: the class's own runs weigh half at the count
// where they replace the pool). The class's few runs move the centre but
// not the spread, which n < MinN cannot estimate. Nil when no class has
// MinN at the stage (the model's own spread stays).
func (r *Residuals) Pooled(key string, stage int) []float64 {
	if r == nil || r.by == nil {
		return nil
	}
	typed := strings.HasSuffix(key, TypedReducesSuffix)
	var devs, medians []float64
	for _, k := range sortedKeys(r.by) {
		s := r.by[k][stage]
		if k == key || len(s) < r.minN() || strings.HasSuffix(k, TypedReducesSuffix) != typed {
			continue
		}
		logs := logsOf(s)
		m := calibrate.Median(logs)
		medians = append(medians, m)
		for _, l := range logs {
			devs = append(devs, l-m)
		}
	}
	if len(medians) == 0 {
		return nil
	}
	centre := calibrate.Median(medians)
	if own := logsOf(r.by[key][stage]); len(own) > 0 {
		z := float64(len(own)) / float64(len(own)+r.minN())
		centre = z*calibrate.Median(own) + (1-z)*centre
	}
	out := make([]float64, len(devs))
	for i, d := range devs {
		out[i] = math.Exp(centre + d)
	}
	return out
}

func sortedKeys(m map[string]map[int][]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
