package deadline

import "math"

// Samples are a class's observed phase durations (seconds), the input of
// a PhaseModel and a Profile.
type Samples struct {
	Map, Shuffle1, Shuffle2, Reduce []float64
	// Jobs are (input maps, duration seconds) of whole runs, for the
	// input-size regression.
	Jobs [][2]float64
	// MapsByJob are map durations grouped by run, for the between-run
	// spread (PhaseModel.JobSigma).
	MapsByJob [][]float64
	// ReduceOn are the reduce durations by the node type they ran on, for
	// PhaseModel.ReduceOn (types with fewer than MinReduceOnType are left
	// to the mixture).
	ReduceOn map[string][]float64
}

// MinReduceOnType is the fewest reduces on a node type that get their own
// fit: fewer would move a prediction by one run's luck.
const MinReduceOnType = 5

// Model fits each phase by eq. 5.1; a phase without samples borrows the
// other shuffle wave, or stays zero.
func (s Samples) Model() (PhaseModel, bool) {
	var m PhaseModel
	var ok bool
	if m.Map, ok = Fit(s.Map); !ok {
		return m, false
	}
	m.Reduce, m.HasReduce = Fit(s.Reduce)
	m.Shuffle1, _ = Fit(s.Shuffle1)
	m.Shuffle2, _ = Fit(s.Shuffle2)
	if m.Shuffle2 == (LogNormal{}) {
		m.Shuffle2 = m.Shuffle1
	}
	if m.Shuffle1 == (LogNormal{}) {
		m.Shuffle1 = m.Shuffle2
	}
	m.JobSigma = jobSigma(s.MapsByJob)
	if m.HasReduce {
		for t, x := range s.ReduceOn {
			if len(x) < MinReduceOnType {
				continue
			}
			if l, ok := Fit(x); ok {
				if m.ReduceOn == nil {
					m.ReduceOn = map[string]LogNormal{}
				}
				m.ReduceOn[t] = l
			}
		}
	}
	return m, true
}

// Blend mixes a history model with a running job's own finished maps
// (online profiling, STEAMEngine; Lee §5.4.2): μ and σ are averaged
// weighted by sample counts, so the job's own tasks dominate as they finish.
func Blend(history LogNormal, nHistory int, own LogNormal, nOwn int) LogNormal {
	if nOwn < 2 {
		return history
	}
	if nHistory < 2 {
		return own
	}
	a, b := float64(nHistory), float64(nOwn)
	return LogNormal{Mu: (a*history.Mu + b*own.Mu) / (a + b), Sigma: math.Sqrt((a*history.Sigma*history.Sigma + b*own.Sigma*own.Sigma) / (a + b))}
}

// SizeRegression fits duration = a + b·maps across runs of a class (input
// size adjustment, Lee §5.5); ok is false with fewer than 3 runs.
func (s Samples) SizeRegression() (a, b float64, ok bool) {
	n := float64(len(s.Jobs))
	if n < 3 {
		return 0, 0, false
	}
	var sx, sy, sxx, sxy float64
	for _, j := range s.Jobs {
		sx, sy, sxx, sxy = sx+j[0], sy+j[1], sxx+j[0]*j[0], sxy+j[0]*j[1]
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return sy / n, 0, true
	}
	b = (n*sxy - sx*sy) / den
	return (sy - b*sx) / n, b, true
}

// jobSigma is the standard deviation, across runs with at least 5 maps, of
// the mean log map duration; 0 with fewer than 3 such runs.
func jobSigma(byJob [][]float64) float64 {
	var means []float64
	for _, d := range byJob {
		if len(d) < 5 {
			continue
		}
		s := 0.0
		for _, v := range d {
			s += math.Log(math.Max(v, 1e-3))
		}
		means = append(means, s/float64(len(d)))
	}
	if len(means) < 3 {
		return 0
	}
	mu := 0.0
	for _, v := range means {
		mu += v
	}
	mu /= float64(len(means))
	ss := 0.0
	for _, v := range means {
		ss += (v - mu) * (v - mu)
	}
	return math.Sqrt(ss / float64(len(means)-1))
}
