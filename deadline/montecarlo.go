package deadline

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"sort"
)

// PhaseModel is a class's per-phase task-duration distributions at the
// reference node type (Lee ch. 5): maps, first- and second-wave shuffles,
// reduces, and container (worker) arrival delay.
type PhaseModel struct {
	Map, Shuffle1, Shuffle2, Reduce LogNormal
	Arrival                         LogNormal // zero: containers are there at once
	HasReduce                       bool
	// ReduceOn are the reduce (merge + reduce) durations per node type
	// (Lee eq. 5.1 fitted on the class's reduces that ran on that type):
	// a reduce whose node is known draws from its type's fit (Work.ReduceOn)
	// instead of Reduce, the mixture over wherever past reduces landed.
	ReduceOn map[string]LogNormal
	// JobSigma is the spread between runs of the class (σ of the log of a
	// run's mean map time around the class's): runs differ in where their
	// containers land and what else runs, not only task by task. Each
	// Monte-Carlo run draws one factor exp(JobSigma·N(0,1)) for all its
	// tasks, so P(meet) carries that uncertainty too.
	JobSigma float64
	// RunMaps and RunReduces are the median tasks per run in the class's
	// history (0: unknown): the size a new run of the class is expected to
	// have before its AM reports its own (a goal job arriving).
	RunMaps, RunReduces int
}

// Work is what remains of a job: maps not yet started, reduces not yet
// finished, and the maps running now as the fraction of each still to do
// (1 − the task's progress, from the AM) — online profiling in the manner
// of STEAMEngine: a running map costs its residual, not a whole map.
type Work struct {
	Maps, Reduces int
	MapResidual   []float64
	// ReduceHeld are containers already running reduces (launched at
	// slow-start): no map runs on them, and they join the reduce phase.
	ReduceHeld int
	// MapRemain, in MapResidual's order, are the seconds a running map has
	// left by its own rate (TaskRemaining), negative when unknown: the map
	// then costs its residual of a drawn map time. A map that ran slow so
	// far (a slow node) keeps its pace instead of the class's average.
	MapRemain []float64
	// ReduceOn, in the order the reduces are simulated (the running ones
	// first), are the reduce-duration fits of the node types they run on
	// (PhaseModel.ReduceOn); a zero or missing entry draws the class's
	// Reduce. STEAMEngine's residual reduce phase (digest 003, Obs. 3: T =
	// T_map + T_rreduce) then costs each known reduce at its node's CR
	// (Lee §4.2) rather than at the class's average over node types.
	ReduceOn []LogNormal
	// ReduceRemain, in the same order, are the seconds a running reduce
	// has left by its own rate (TaskRemaining) once the map phase is over,
	// negative when unknown: it then ends at that time on its held
	// container instead of drawing a whole shuffle and reduce.
	ReduceRemain []float64
	// ReduceLeft, in the same order, are the shares of a running reduce
	// still to do (ReduceLefts) once the map phase is over, negative when
	// unknown: it then ends after that share of a drawn shuffle and
	// reduce on its held container. ReduceRemain comes first where both
	// are known.
	ReduceLeft []float64
}

// reduceFit is the duration fit the i-th simulated reduce draws from: its
// node type's (ReduceOn) where known, else the class's mixture.
func (w Work) reduceFit(m PhaseModel, i int) LogNormal {
	if i < len(w.ReduceOn) && w.ReduceOn[i] != (LogNormal{}) {
		return w.ReduceOn[i]
	}
	return m.Reduce
}

// Distribution is a sorted sample of completion times (seconds from now).
type Distribution struct {
	T []float64
	// Conformal makes it the smoothed conformal predictive distribution
	// of n calibration scores (Vovk et al. 2005, §2.3; Lei et al. 2018):
	// the next one falls below the k-th smallest with probability
	// k/(n+1), linearly in between, and beyond the largest with 1/(n+1).
	// A step CDF k/n over a few dozen scores would claim certainty past
	// the largest and sit half a step low between them.
	Conformal bool
	// Recal, when set, are the sorted PITs of past outlooks like this one
	// (Recalibration): P becomes G∘P and Quantile follows it.
	Recal []float64
}

// Base is the distribution without its recalibration: what a finished
// job's PIT is taken under (Recalibration).
func (d Distribution) Base() Distribution {
	d.Recal = nil
	return d
}

// Quantile returns the q-quantile (0..1).
func (d Distribution) Quantile(q float64) float64 {
	if len(d.T) == 0 {
		return math.NaN()
	}
	if d.Recal != nil {
		q = recalibratedInverse(q, d.Recal)
	}
	if d.Conformal {
		return d.conformalQuantile(q)
	}
	i := int(math.Ceil(q*float64(len(d.T)))) - 1
	if i < 0 {
		i = 0
	}
	return d.T[i]
}

// P is P(T ≤ t).
func (d Distribution) P(t float64) float64 {
	if len(d.T) == 0 {
		return 0
	}
	if d.Recal != nil {
		return Recalibrated(d.Base().P(t), d.Recal)
	}
	if d.Conformal {
		return d.conformalP(t)
	}
	return float64(sort.SearchFloat64s(d.T, math.Nextafter(t, math.Inf(1)))) / float64(len(d.T))
}

func draw(r *rand.Rand, l LogNormal) float64 {
	if l.Mu == 0 && l.Sigma == 0 {
		return 0
	}
	return math.Exp(l.Mu + l.Sigma*r.NormFloat64())
}

// Simulate is Lee's Monte-Carlo (§5.2, "take two"): per run, draw each
// worker's arrival and each task's duration, schedule maps greedily on the
// earliest-free worker, then first-wave shuffles (one per worker, waiting
// for the map phase) and second-wave ones, each followed by its reduce; the
// completion time is the last reduce's end. speeds, when given, scale each
// worker's task durations by 1/speed (CR of the node type the container is
// on — an extension of the thesis's homogeneous model).
//
// Workers the job's tasks can never reach are not simulated
// (busyWorkers), so a run costs O(tasks), not O(workers): a bisection up
// to a queue's maximum containers (MinContainers) was per job × per slot
// of the cluster (issue 19: 0.5–0.8 s of decide at hetero-1000).
func Simulate(m PhaseModel, w Work, workers int, speeds []float64, n int, seed uint64) Distribution {
	return simulate(m, w, busyWorkers(m, w, workers, speeds), speeds, n, seed)
}

// busyWorkers is how many of workers can change Simulate's outcome. With
// no arrival delay (a worker is free at 0 and draws nothing) and one speed
// for all, each of the maps and reduces goes to a worker still free at 0
// as long as one is left, so beyond the residual maps, the maps and the
// reduces without a held container, extra workers stay idle at 0: they
// neither take a task, move the map phase's end, nor consume a draw.
func busyWorkers(m PhaseModel, w Work, workers int, speeds []float64) int {
	if len(speeds) > 0 || m.Arrival != (LogNormal{}) {
		return workers
	}
	need := len(w.MapResidual) + max(w.Maps, 0)
	if m.HasReduce && w.Reduces > 0 {
		need += max(w.Reduces-max(w.ReduceHeld, 0), 0)
	}
	return min(workers, max(need, 1))
}

// simulate is Simulate with every one of workers simulated.
func simulate(m PhaseModel, w Work, workers int, speeds []float64, n int, seed uint64) Distribution {
	if workers < 1 {
		workers = 1
	}
	r := rand.New(rand.NewPCG(seed, seed^0x5DEECE66D))
	out := make([]float64, n)
	W := make([]float64, workers)
	R := make([]float64, workers+max(w.ReduceHeld, 0))                   // reduce-phase workers
	rest := make([]float64, max(len(w.ReduceRemain), len(w.ReduceLeft))) // running reduces' rests, per run
	baseSpeed := func(j int) float64 {
		if len(speeds) == 0 {
			return 1
		}
		if s := speeds[j%len(speeds)]; s > 0 {
			return s
		}
		return 1
	}
	for k := 0; k < n; k++ {
		jobFactor := 1.0
		if m.JobSigma > 0 {
			jobFactor = math.Exp(m.JobSigma * r.NormFloat64())
		}
		speed := func(j int) float64 { return baseSpeed(j) / jobFactor }
		for j := range W {
			W[j] = draw(r, m.Arrival)
			if j < len(w.MapResidual) {
				W[j] = w.MapResidual[j] * draw(r, m.Map) / speed(j)
				if j < len(w.MapRemain) && w.MapRemain[j] >= 0 {
					W[j] = w.MapRemain[j]
				}
			}
		}
		free := newFreeAt(W)
		for i := 0; i < w.Maps; i++ {
			j := free.earliest()
			free.advance(W[j] + draw(r, m.Map)/speed(j))
		}
		mapEnd := 0.0
		for _, t := range W {
			mapEnd = math.Max(mapEnd, t)
		}
		end := mapEnd
		if m.HasReduce && w.Reduces > 0 {
			for j := range R {
				R[j] = 0
				if j < len(W) {
					R[j] = math.Max(W[j], 0)
				}
			}
			// Running reduces with a known rest keep their held
			// container (R's entries past the map workers) until then.
			for i := range rest {
				rest[i] = -1
				if i >= w.Reduces || len(W)+i >= len(R) {
					continue
				}
				switch {
				case i < len(w.ReduceRemain) && w.ReduceRemain[i] >= 0:
					rest[i] = w.ReduceRemain[i]
				case i < len(w.ReduceLeft) && w.ReduceLeft[i] >= 0:
					rest[i] = w.ReduceLeft[i] * (draw(r, m.Shuffle1) + draw(r, w.reduceFit(m, i))) / speed(len(W)+i)
				}
				if rest[i] >= 0 {
					R[len(W)+i] = rest[i]
				}
			}
			free := newFreeAt(R)
			for i := 0; i < w.Reduces; i++ {
				if i < len(rest) && rest[i] >= 0 {
					end = math.Max(end, rest[i])
					continue
				}
				j := free.earliest()
				sh := m.Shuffle2
				if i < len(R) {
					sh = m.Shuffle1
				}
				start := math.Max(R[j], mapEnd)
				free.advance(start + (draw(r, sh)+draw(r, w.reduceFit(m, i)))/speed(j))
				end = math.Max(end, R[j])
			}
		}
		out[k] = end
	}
	sort.Float64s(out)
	return Distribution{T: out}
}

// freeAt is a min-heap of worker indices by the time each is next free
// (W), so each task goes to the earliest-free container in O(log w) —
// with ties broken by the lowest index, as a linear scan would.
type freeAt struct {
	W   []float64
	idx []int
}

func newFreeAt(W []float64) *freeAt {
	f := &freeAt{W: W, idx: make([]int, len(W))}
	for i := range f.idx {
		f.idx[i] = i
	}
	heap.Init(f)
	return f
}

func (f *freeAt) Len() int { return len(f.idx) }
func (f *freeAt) Less(a, b int) bool {
	wa, wb := f.W[f.idx[a]], f.W[f.idx[b]]
	return wa < wb || (wa == wb && f.idx[a] < f.idx[b])
}
func (f *freeAt) Swap(a, b int) { f.idx[a], f.idx[b] = f.idx[b], f.idx[a] }
func (f *freeAt) Push(any)      { panic("freeAt: fixed size") }
func (f *freeAt) Pop() any      { panic("freeAt: fixed size") }

// earliest is the worker free first.
func (f *freeAt) earliest() int { return f.idx[0] }

// advance sets the earliest worker's next free time to t.
func (f *freeAt) advance(t float64) {
	f.W[f.idx[0]] = t
	heap.Fix(f, 0)
}

// MinContainers is the smallest number of containers (1..maxW) with
// P(T ≤ deadline) ≥ confidence, found by bisection (P is monotone in w up to
// Monte-Carlo noise; the same seed is used for every w). ok is false when
// even maxW misses.
func MinContainers(m PhaseModel, w Work, deadline, confidence float64, maxW, n int, seed uint64) (int, bool) {
	return minContainers(m, w, nil, false, deadline, confidence, maxW, n, seed)
}

// minContainers is MinContainers with P(meet) from the class's residuals
// when there are any (Calibrated around each k's Monte-Carlo p50).
// step: the residuals' step CDF k/n instead of the conformal one
// (ReportOptions.StepCDF).
func minContainers(m PhaseModel, w Work, residuals []float64, step bool, deadline, confidence float64, maxW, n int, seed uint64) (int, bool) {
	// Probes above busyWorkers simulate the same run: each is asked once.
	asked := map[int]bool{}
	meets := func(k int) bool {
		k = busyWorkers(m, w, k, nil)
		if ok, seen := asked[k]; seen {
			return ok
		}
		d := simulate(m, w, k, nil, n, seed)
		if residuals != nil {
			d = Calibrated(d.Quantile(0.5), residuals)
			d.Conformal = !step
		}
		asked[k] = d.P(deadline) >= math.Min(confidence, d.Reach())
		return asked[k]
	}
	if maxW < 1 || !meets(maxW) {
		return maxW, false
	}
	lo, hi := 1, maxW
	for lo < hi {
		mid := (lo + hi) / 2
		if meets(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, true
}

// conformalP is P(T ≤ t) of the conformal predictive distribution: the
// k-th smallest of n sits at k/(n+1), linear between neighbours and from
// (0, 0) to the smallest; past the largest, n/(n+1).
func (d Distribution) conformalP(t float64) float64 {
	n := len(d.T)
	step := 1 / float64(n+1)
	if t <= 0 {
		return 0
	}
	k := sort.SearchFloat64s(d.T, t) // T[k-1] < t ≤ T[k]
	switch {
	case k >= n:
		return float64(n) * step
	case k == 0:
		return step * math.Min(1, t/math.Max(d.T[0], 1e-9))
	}
	lo, hi := d.T[k-1], d.T[k]
	return step * (float64(k) + (t-lo)/math.Max(hi-lo, 1e-9))
}

// conformalQuantile inverts conformalP; at and past n/(n+1) it is the
// largest score (the rest of the mass has no finite place).
func (d Distribution) conformalQuantile(q float64) float64 {
	n := len(d.T)
	x := math.Max(q, 0) * float64(n+1)
	k := int(math.Floor(x))
	switch {
	case k >= n:
		return d.T[n-1]
	case k == 0:
		return d.T[0] * x
	}
	return d.T[k-1] + (x-float64(k))*(d.T[k]-d.T[k-1])
}
