package deadline

import (
	"math"
	"sort"
)

// Stages are the shares of a job's maps finished (percent) at which a
// prediction is remembered and later scored against the job's real end:
// STEAMEngine's online profiling points (digest 003, R6: the error falls
// as the map phase advances, so each stage keeps its own residuals).
var Stages = []int{10, 20, 50}

// StageOf is the stage of a job with mapsDone of mapsTotal finished: the
// largest stage reached, or 0 before the first (no residuals apply).
func StageOf(mapsDone, mapsTotal int) int {
	if mapsTotal <= 0 {
		return 0
	}
	st := 0
	for _, s := range Stages {
		if mapsDone*100 >= s*mapsTotal {
			st = s
		}
	}
	return st
}

// Residual is one scored prediction: a job of Class, predicted at Stage,
// took Ratio = actual remaining time / the model's predicted (p50)
// remaining time.
type Residual struct {
	Class string  `json:"class"`
	Stage int     `json:"stage"`
	Ratio float64 `json:"ratio"`
}

// Residuals are the recent residuals of each class and stage, oldest
// first, at most Max each. They turn the Monte-Carlo's p50 into a
// calibrated distribution (split-conformal prediction, Vovk et al. 2005;
// Lei et al. 2018, on the ratio as score): the model's bias per class —
// allocation delay, waves, containers lost to other queues, none of which
// the model sees — is learned from how the class's earlier runs ended
// (STEAMEngine §4.2: "combine with online profiling to correct errors").
type Residuals struct {
	by windows
	// Max bounds each class and stage (the oldest go first, so the
	// correction follows a class that changes); MinN is the fewest that
	// replace the model's own spread.
	Max, MinN int
}

// Default bounds of Residuals: 60 recent runs per class and stage; a
// correction from fewer than 10 would move by one run's luck.
const (
	DefaultResidualMax  = 60
	DefaultResidualMinN = 10
)

// NewResiduals returns an empty set with the default bounds.
func NewResiduals() *Residuals {
	return &Residuals{Max: DefaultResidualMax, MinN: DefaultResidualMinN}
}

// Add appends one residual (in finishing order); non-finite or
// non-positive ratios are dropped.
func (r *Residuals) Add(x Residual) {
	if !(x.Ratio > 0) || math.IsInf(x.Ratio, 0) || x.Stage <= 0 {
		return
	}
	r.by.add(x.Class, x.Stage, x.Ratio, r.max())
}

// windows holds the newest values per key and stage; the oldest go first
// once a window is full.
type windows map[string]map[int][]float64

func (w *windows) add(key string, stage int, v float64, limit int) {
	if *w == nil {
		*w = windows{}
	}
	if (*w)[key] == nil {
		(*w)[key] = map[int][]float64{}
	}
	s := append((*w)[key][stage], v)
	if len(s) > limit {
		s = append([]float64(nil), s[len(s)-limit:]...)
	}
	(*w)[key][stage] = s
}

func (r *Residuals) max() int {
	if r.Max <= 0 {
		return DefaultResidualMax
	}
	return r.Max
}

func (r *Residuals) minN() int {
	if r.MinN <= 0 {
		return DefaultResidualMinN
	}
	return r.MinN
}

// Of is the residuals of a class at a stage (nil when there are fewer than
// MinN, so the caller falls back to the model).
func (r *Residuals) Of(class string, stage int) []float64 {
	if r == nil || r.by == nil {
		return nil
	}
	s := r.by[class][stage]
	if len(s) < r.minN() {
		return nil
	}
	return s
}

// Count is the residuals held per class and stage, for reports.
func (r *Residuals) Count() map[string]map[int]int {
	out := map[string]map[int]int{}
	if r == nil {
		return out
	}
	for c, bySt := range r.by {
		out[c] = map[int]int{}
		for st, s := range bySt {
			out[c][st] = len(s)
		}
	}
	return out
}

// Calibrated is the completion-time distribution (seconds from now) of a
// job whose model predicts predicted seconds: predicted × each residual,
// as the conformal predictive distribution (Distribution.Conformal): P(T ≤
// left) is (k + the fraction of the way to the next)/(n+1) for the k of
// the n past runs that, scaled to this prediction, would have finished in
// time, and its median the model corrected by the median residual.
func Calibrated(predicted float64, residuals []float64) Distribution {
	t := make([]float64, len(residuals))
	for i, r := range residuals {
		t[i] = predicted * r
	}
	sort.Float64s(t)
	return Distribution{T: t, Conformal: true}
}

// Reach is the highest confidence a distribution can give: n/(n+1) for a
// conformal one of n scores, 1 otherwise. A goal asked at a confidence
// above it is judged at Reach: ten past runs cannot vouch for 95%, which
// does not make the goal unreachable.
func (d Distribution) Reach() float64 {
	if d.Recal != nil {
		return Recalibrated(d.Base().Reach(), d.Recal)
	}
	if !d.Conformal || len(d.T) == 0 {
		return 1
	}
	return float64(len(d.T)) / float64(len(d.T)+1)
}

// Clone is a deep copy (the learner hands one to each decision while it
// keeps adding to its own).
func (r *Residuals) Clone() *Residuals {
	if r == nil {
		return nil
	}
	out := &Residuals{Max: r.Max, MinN: r.MinN, by: map[string]map[int][]float64{}}
	for c, bySt := range r.by {
		out.by[c] = map[int][]float64{}
		for st, s := range bySt {
			out.by[c][st] = append([]float64(nil), s...)
		}
	}
	return out
}

// TypedReducesSuffix marks the residual key of outlooks whose running
// reduces were costed at their node types (ReduceKinds).
const TypedReducesSuffix = "@typed-reduces"

// ResidualKeyOf is the key a class's residuals are kept under: the class,
// or with typed the class's category of outlooks whose reduce phase was
// costed by node type. Mondrian conformal prediction (Vovk et al. 2005,
// §4.5): the conformal distribution is calibrated within each category,
// and a typed outlook's ratios are narrower than an untyped one's, so one
// pool would be too wide for the first and too narrow for the second.
func ResidualKeyOf(class string, typed bool) string {
	if typed {
		return class + TypedReducesSuffix
	}
	return class
}
