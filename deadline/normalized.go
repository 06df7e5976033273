package deadline

import "math"

// MinLogSpread bounds the spread a residual is normalized by: a Monte-Carlo
// of many equal tasks can be near-deterministic, and a score divided by
// (nearly) zero would be unbounded.
const MinLogSpread = 0.02

// LogSpread is the model's own spread of the remaining time on the log
// scale, the interquartile range of log T over that of a standard normal
// (1.349), at least MinLogSpread: the σ of a lognormal, read robustly off
// the Monte-Carlo's samples.
func LogSpread(d Distribution) float64 {
	lo, hi := d.Quantile(0.25), d.Quantile(0.75)
	if !(lo > 0) || !(hi > 0) {
		return MinLogSpread
	}
	return math.Max(MinLogSpread, math.Log(hi/lo)/1.349)
}

// NormalizedScore is a residual ratio (actual / predicted remaining) as
// the score of locally weighted conformal prediction: its log over the
// outlook's own spread, kept as a ratio, exp(ln(ratio)/spread), so it is
// stored and windowed as any residual (Residuals). Papadopoulos et al.
// 2008 and Lei et al. 2018 §5.2 (normalized nonconformity |y − ŷ|/ρ̂(x)):
// the conformal distribution stays valid over exchangeable runs and its
// width follows each outlook's own spread.
func NormalizedScore(ratio, spread float64) float64 {
	return math.Exp(math.Log(ratio) / math.Max(spread, MinLogSpread))
}

// Scaled turns normalized scores back into residual ratios for an outlook
// of the given spread: score^spread (nil stays nil).
func Scaled(scores []float64, spread float64) []float64 {
	if scores == nil {
		return nil
	}
	sp := math.Max(spread, MinLogSpread)
	out := make([]float64, len(scores))
	for i, s := range scores {
		out[i] = math.Pow(s, sp)
	}
	return out
}
