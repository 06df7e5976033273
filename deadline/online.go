package deadline

import "math"

// WithOwnMaps is the class model updated with a running job's own finished
// maps (online profiling, STEAMEngine §4.2.2; Lee §5.4.2): the run's mean
// log map time is drawn, per the model, around the class's μ with spread
// JobSigma, and each finished map is a draw around the run's mean with
// spread Map.Sigma. The normal–normal posterior (precision-weighted mean)
// moves Map.Mu by
//
//	δ = n/(n + σ²/J²) · (mean ln x − μ)
//
// and leaves JobSigma at the posterior spread 1/√(1/J² + n/σ²), so a run's
// own maps dominate once there are more than σ²/J² of them. Finished maps
// are speed-weighted (a fast container finishes more of them), which is
// what the Monte-Carlo's identical workers need. With JobSigma 0 (history
// shows no spread between runs) or no finished maps, m is returned as is.
func WithOwnMaps(m PhaseModel, own []float64) PhaseModel {
	n := 0
	sum := 0.0
	for _, x := range own {
		if x > 0 {
			sum += math.Log(x)
			n++
		}
	}
	if n == 0 || m.JobSigma <= 0 || m.Map.Sigma <= 0 {
		return m
	}
	s2, j2 := m.Map.Sigma*m.Map.Sigma, m.JobSigma*m.JobSigma
	w := float64(n) / (float64(n) + s2/j2)
	m.Map.Mu += w * (sum/float64(n) - m.Map.Mu)
	m.JobSigma = math.Sqrt(1 / (1/j2 + float64(n)/s2))
	return m
}

// MapsRemaining is STEAMEngine's online map-phase estimate (digest §4.2.2:
// map progress is linear in time): with progress p (0..1, finished maps
// plus running maps' fractions over all maps) reached after elapsed
// seconds of the map phase, the rest takes elapsed·(1−p)/p. ok is false
// before any progress. Not used by Report: measured as a bench candidate
// (testenv/bench/deadline.go) it finishes jobs far too early on the mini
// cluster, whose jobs slow down after their first maps.
func MapsRemaining(elapsed, progress float64) (float64, bool) {
	if progress <= 0 || elapsed <= 0 {
		return 0, false
	}
	if progress >= 1 {
		return 0, true
	}
	return elapsed * (1 - progress) / progress, true
}

// MinTaskProgress is the least progress from which a running task's own
// rate is trusted (TaskRemaining): below it the task has mostly spent its
// time starting (JVM launch, first heartbeat), and Hadoop 3.3.6 shows maps
// at 0.0 after 27 s (recorded AM tasks, real-hadoop-3.3.6/running).
const MinTaskProgress = 0.1

// TaskRemaining is STEAMEngine's linear extrapolation (digest 003 §2.1.2)
// applied to one running task, as Hadoop's speculator estimates a task's
// end from its progress rate: elapsed seconds for progress p (0..1) leave
// elapsed·(1−p)/p, less age, the seconds since the reading (a reused AM
// view), and never below 0. ok is false below MinTaskProgress. Map
// progress in Hadoop jumps at the map/sort boundary (66.7%), so on a real
// cluster this is an estimate that the residuals calibrate; in the mini
// cluster progress is linear in time.
func TaskRemaining(elapsed, progress, age float64) (float64, bool) {
	if progress < MinTaskProgress || elapsed <= 0 {
		return 0, false
	}
	if progress >= 1 {
		return 0, true
	}
	return math.Max(0, elapsed*(1-progress)/progress-age), true
}

// ShareWorkers is the containers a job can expect on average over its
// remaining work when its queue runs above its guaranteed capacity and
// other queues wait: each container it frees goes back to the queues below
// their share (Capacity Scheduler, no preemption needed), so its count
// falls from held toward held·guaranteed/used. The average over the rest
// of the job is taken as the midpoint of the two (a straight-line decline).
// absCap and absUsed are the queue's absolute capacity and usage (% of the
// partition); othersPending whether other queues have pending requests.
// Not used by Report: as a bench candidate it moved no figure by more
// than half a point (it rarely applies in the default partition).
func ShareWorkers(held int, absCap, absUsed float64, othersPending bool) int {
	if held < 1 || !othersPending || absUsed <= absCap || absCap <= 0 {
		return held
	}
	end := float64(held) * absCap / absUsed
	return max(1, int(math.Round((float64(held)+end)/2)))
}

// ReduceKinds are the reduce-duration fits of a job's running reduces
// (Work.ReduceOn): for each node the AM says a reduce runs on, the class's
// fit on that node's type (PhaseModel.ReduceOn), or the zero LogNormal
// (the class's mixture) when the type is unknown or has no fit. nil when
// nothing is known, so Simulate draws as before.
func ReduceKinds(m PhaseModel, nodes []string, typeOf func(addr string) string) []LogNormal {
	if typeOf == nil || len(m.ReduceOn) == 0 || len(nodes) == 0 {
		return nil
	}
	out := make([]LogNormal, len(nodes))
	known := false
	for i, addr := range nodes {
		if l, ok := m.ReduceOn[typeOf(addr)]; ok {
			out[i], known = l, true
		}
	}
	if !known {
		return nil
	}
	return out
}

// ReduceRemains are the seconds each running reduce has left by its own
// rate (TaskRemaining on its progress and elapsed seconds, less age), in
// Job.RunningReduces' order, once the job's maps are all done (maps
// false); −1 where unknown. While maps run, a reduce's progress is its
// copy of map outputs, paced by the maps, not its own rate: nil then.
// STEAMEngine extrapolates the residual reduce phase "in the same
// fashion" once the map phase is over (digest 003 §4.2.2); without it the
// Monte-Carlo costs a reduce seen halfway through as a whole one (fb-tiny
// predicted +14.8% late at 50% of maps, uncalibrated).
func ReduceRemains(mapsLeft bool, progress, elapsed []float64, age float64) []float64 {
	if mapsLeft || len(progress) == 0 {
		return nil
	}
	out := make([]float64, len(progress))
	for i, p := range progress {
		out[i] = -1
		if i < len(elapsed) {
			if t, ok := TaskRemaining(elapsed[i], p, age); ok {
				out[i] = t
			}
		}
	}
	return out
}

// ReduceLefts are the shares (0..1) of each running reduce still to do,
// 1 − its progress, in Job.RunningReduces' order, once the job's maps are
// all done (mapsLeft false): the reduce-phase counterpart of a running
// map's residual (Work.MapResidual), so the Monte-Carlo draws only the
// rest of a reduce it sees partly done instead of a whole one (fb-tiny,
// uncalibrated: +14.8% late), and keeps the class's spread where
// ReduceRemains would cost it as certain. nil while maps run (a reduce's
// progress is then its copy of map outputs, paced by the maps).
// STEAMEngine's residual reduce phase (digest 003, Obs. 3: T = T_map +
// T_rreduce) with the running tasks' progress as its online profile
// (§4.2.2).
func ReduceLefts(mapsLeft bool, progress []float64) []float64 {
	if mapsLeft || len(progress) == 0 {
		return nil
	}
	out := make([]float64, len(progress))
	for i, p := range progress {
		out[i] = math.Min(1, math.Max(0, 1-p))
	}
	return out
}
