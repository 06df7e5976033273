package deadline

import "math"

// LogNormal is a log-normal distribution of task durations (seconds).
type LogNormal struct{ Mu, Sigma float64 }

// Fit estimates μ, σ by the method of moments, Lee eq. 5.1:
// μ = ln E[X] − ½ ln(1 + Var[X]/E[X]²), σ² = ln(1 + Var[X]/E[X]²).
func Fit(x []float64) (LogNormal, bool) {
	n := float64(len(x))
	if n < 2 {
		return LogNormal{}, false
	}
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= n
	if m <= 0 {
		return LogNormal{}, false
	}
	vr := 0.0
	for _, v := range x {
		vr += (v - m) * (v - m)
	}
	vr /= n - 1
	s2 := math.Log(1 + vr/(m*m))
	return LogNormal{Mu: math.Log(m) - s2/2, Sigma: math.Sqrt(s2)}, true
}

// Mean is E[X].
func (l LogNormal) Mean() float64 { return math.Exp(l.Mu + l.Sigma*l.Sigma/2) }
