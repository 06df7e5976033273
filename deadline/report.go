package deadline

import (
	"math"
	"sort"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Verdicts of the deadline report.
const (
	OnTrack    = "on track"
	AtRisk     = "at risk"
	CannotMeet = "cannot meet even with the whole queue"
	NoGoal     = "no goal"
)

// UnknownVerdict is the verdict of a job with a goal the report cannot
// judge: its class has no model yet (no finished runs to learn from), or
// it has made no progress to extrapolate. Never a blank (issue 18).
func UnknownVerdict(class string) string {
	if class == "" {
		return "unknown (no job class: see job_class.by)"
	}
	return "unknown (no history of class " + class + ")"
}

// JobReport is one running job's outlook.
type JobReport struct {
	AppID    string     `json:"appId"`
	Name     string     `json:"name"`
	Queue    string     `json:"queue"`
	Class    string     `json:"class"`
	Deadline *time.Time `json:"deadline,omitempty"`
	Progress float64    `json:"progress"` // 0..1
	// P50 is the point estimate of the finish. For a calibrated outlook it
	// is the model's p50 times the residuals' shrunk correction
	// (ShrunkRatio), so it may differ from the CDF's 0.5 point, which
	// keeps the full correction that calibrates P(meet).
	P50    time.Time `json:"p50"`
	P90    time.Time `json:"p90"`
	PMeet  *float64  `json:"pMeet,omitempty"`
	Held   int       `json:"containersHeld"`
	Needed int       `json:"containersNeeded,omitempty"` // at the confidence
	// NeededIsHeld says Needed is the containers the app holds, not a
	// search over more (an Outlook's app: outlookVerdict).
	NeededIsHeld bool `json:"neededIsHeld,omitempty"`
	// Remaining are the job's tasks not finished (running or not yet
	// started): the containers that would run all of them at once, its
	// last wave (jobs with a model and a job view only).
	Remaining int    `json:"tasksRemaining,omitempty"`
	Verdict   string `json:"verdict"`
	Method    string `json:"method"` // monte-carlo or extrapolation
	// JobView says how current the job behind the outlook is (issue 19:
	// the AM reads of a cycle are budgeted): fresh, reused (read JobAge
	// ago) or estimated (not read: extrapolated from the RM's progress).
	JobView cluster.JobView `json:"jobView,omitempty"`
	JobAge  time.Duration   `json:"jobAgeNs,omitempty"`
	CDF     [][2]float64    `json:"cdf,omitempty"` // (seconds from now, P)
	// Stage is the share of maps finished (a value of Stages, 0 before
	// the first) and ModelRemain the model's own p50 remaining seconds:
	// what the prediction tracker remembers and scores when the job ends.
	Stage       int     `json:"stage,omitempty"`
	ModelRemain float64 `json:"modelRemainSeconds,omitempty"`
	// ModelSpread is, under ReportOptions.NormalizedResiduals, the
	// model's own log spread of the remaining time (LogSpread), which
	// normalizes its residual (NormalizedScore).
	ModelSpread float64 `json:"modelSpread,omitempty"`
	// Residuals is how many past runs of the class calibrated the outlook
	// (0: the Monte-Carlo's own spread, too few runs scored yet).
	Residuals int `json:"residuals,omitempty"`
	// ResidualKey is the class key the outlook's residuals are kept
	// under (ResidualKeyOf): what the tracker scores it as.
	ResidualKey string `json:"residualKey,omitempty"`
	// Pooled is, for an outlook of a class with too few residuals of its
	// own (ReportOptions.PoolEarly), how many residuals of other classes
	// gave it their spread (Residuals.Pooled; 0: none).
	Pooled int `json:"pooled,omitempty"`
	// Recalibrated is how many finished outlooks' PITs recalibrated this
	// one (ReportOptions.Recalibration; 0: none).
	Recalibrated int `json:"recalibrated,omitempty"`
	// Dist is the distribution behind P50, P90, CDF and PMeet (seconds
	// from the snapshot), for callers that score P(meet) at other
	// deadlines (the bench's calibration rows).
	Dist   Distribution  `json:"-"`
	Err    string        `json:"error,omitempty"`
	Remain time.Duration `json:"-"`
}

// QueueReport is a queue's jobs and the containers its goals need.
type QueueReport struct {
	Queue      string      `json:"queue"`
	Jobs       []JobReport `json:"jobs"`
	AtRisk     int         `json:"atRisk"`
	Needed     int         `json:"containersNeeded"` // Σ over jobs with goals
	MaxAllowed int         `json:"containersMax"`    // what the whole queue could hold
}

// ReportOptions are the knobs of Report.
type ReportOptions struct {
	ClassOf    func(cluster.App) string
	SLOs       map[string]time.Duration
	Confidence float64 // e.g. 0.9
	Samples    int     // Monte-Carlo runs per job
	Seed       uint64
	// QueueMax is the most containers a queue can hold (its maximum
	// capacity in its partition), for the "cannot meet" verdict.
	QueueMax func(queue string) int
	// OwnMaps updates each class model with the job's own finished maps
	// (WithOwnMaps). Off by default: measured on hetero-100 it makes the
	// finish early (the maps finished at 10–20% are the short ones): the
	// candidate rows of `go run ./testenv/bench -only deadline`.
	OwnMaps bool
	// DrawRunningMaps costs each running map by a residual of a drawn map
	// time instead of its own rate (TaskRemaining, used when the AM's
	// tasks give elapsed times); the bench's baseline.
	DrawRunningMaps bool
	// StepCDF scores a calibrated P(meet) on the residuals' step CDF k/n
	// instead of the conformal predictive distribution (Calibrated); the
	// bench's baseline.
	StepCDF bool
	// SplitTypedReduces keeps the residuals of outlooks whose running
	// reduces were costed at their node types apart (ResidualKeyOf).
	SplitTypedReduces bool
	// ReduceRates costs running reduces by their own rates once the maps
	// are done (ReduceRemains).
	ReduceRates bool
	// WholeRunningReduces costs each running reduce as a whole drawn one
	// even once the maps are done, instead of by the share it has left
	// (ReduceLefts, Job.RunningReduces); the bench's baseline.
	WholeRunningReduces bool
	// MedianPoint puts P50 at the calibrated distribution's median (the
	// model's p50 times the median residual) instead of the model's p50
	// times the shrunk correction (ShrunkRatio); the bench's baseline.
	MedianPoint bool
	// NormalizedResiduals takes each residual as a score normalized by
	// its outlook's own log spread (ModelSpread; NormalizedScore) and
	// scales it back by this outlook's (Scaled): locally weighted
	// conformal prediction, so a sharp outlook (running reduces at known
	// node types) is not given a wide one's spread nor the reverse.
	// The residuals must have been recorded as NormalizedScore. A bench
	// candidate, not the default: with node-typed reduces it left P(meet)
	// no better calibrated (hetero-100 6.3/5.8 pts, fb-2009 6.0/3.7 on
	// seeds 1–3/4–6, against 6.0/4.4 and 3.5/5.6 without).
	NormalizedResiduals bool
	// NodeTypeOf, when set, names the node type of a node HTTP address
	// (host:port), so running reduces (Job.RunningReduceNodes) are costed
	// at their node type's fit (PhaseModel.ReduceOn; ReduceKinds).
	NodeTypeOf func(addr string) string
	// Residuals, when set, calibrate each class's Monte-Carlo p50 by how
	// its earlier runs ended (Calibrated); classes and stages with fewer
	// than Residuals.MinN keep the model's own distribution.
	Residuals *Residuals
	// PoolEarly calibrates an outlook whose class has fewer than
	// Residuals.MinN residuals at its stage by the other classes'
	// residuals, centred partway to its own (Residuals.Pooled), instead
	// of leaving the model's own spread; P50 stays as without. PoolBelow
	// (above Residuals.MinN) pools classes with fewer than that many of
	// their own too; PoolEB estimates the pooling's credibility from the
	// classes (Residuals.PooledEB). Bench candidates, not the default:
	// with node-typed reduces they left P(meet)'s worst decile above 5
	// points on one of hetero-100 and fb-2009's seeds 1–3 and 4–6 (the
	// bench's comment on them has the figures).
	PoolEarly, PoolEB bool
	PoolBelow         int
	// Recalibration, when set, maps each outlook through the PITs of
	// finished outlooks of its key and stage (Distribution.Recal); keys
	// and stages with fewer than its MinN are left as they are.
	Recalibration *Recalibration
	// Outlooks are running apps' remaining work predicted outside the
	// phase model, by app ID (Spark apps: sparkobs.Predict): an app with
	// one is judged by it (outlookVerdict), whatever its class's model.
	Outlooks map[string]Outlook
}

// Report builds the per-queue deadline report from a snapshot and per-class
// models. Jobs with a model get a Monte-Carlo distribution (running maps
// by their own rates, TaskRemaining; once the maps are done, running
// reduces by the share they have left, ReduceLefts), calibrated by the
// class's residuals at the job's map stage when there are enough, as a
// conformal predictive distribution (Calibrated), with P50 the model's
// p50 times the residuals' shrunk correction (ShrunkRatio); others a progress
// extrapolation (STEAMEngine-style), without P(meet).
func Report(snap cluster.Snapshot, models map[string]PhaseModel, o ReportOptions) []QueueReport {
	if o.Confidence == 0 {
		o.Confidence = 0.9
	}
	if o.Samples == 0 {
		o.Samples = 1000
	}
	byQueue := map[string]*QueueReport{}
	for _, a := range snap.RunningApps() {
		class := ""
		if o.ClassOf != nil {
			class = o.ClassOf(a)
		}
		jr := JobReport{AppID: a.ID, Name: a.Name, Queue: a.Queue, Class: class, Progress: a.Progress / 100, Held: a.RunningContainers - 1,
			JobView: a.JobView, JobAge: a.JobAge(snap.Time)}
		if jr.Held < 1 {
			jr.Held = 1
		}
		goal, hasGoal, err := GoalOf(a, class, o.SLOs)
		if err != nil {
			jr.Err = err.Error()
		}
		maxW := jr.Held
		if o.QueueMax != nil {
			if m := o.QueueMax(a.Queue); m > maxW {
				maxW = m
			}
		}
		model, hasModel := models[class]
		ol, hasOutlook := o.Outlooks[a.ID]
		switch {
		case hasOutlook:
			var g *time.Time
			if hasGoal {
				g = &goal.Deadline
			}
			outlookVerdict(&jr, ol, snap.Time, g, o.Confidence, maxW)
		case hasModel && a.Job != nil:
			w := Work{Maps: a.Job.MapsTotal - a.Job.MapsCompleted - len(a.Job.RunningMaps), Reduces: a.Job.ReducesTotal - a.Job.ReducesCompleted}
			if w.Maps < 0 {
				w.Maps = 0
			}
			for i, p := range a.Job.RunningMaps {
				w.MapResidual = append(w.MapResidual, math.Max(0, 1-p))
				rem := -1.0
				if !o.DrawRunningMaps && i < len(a.Job.RunningMapsElapsed) {
					if t, ok := TaskRemaining(a.Job.RunningMapsElapsed[i], p, jr.JobAge.Seconds()); ok {
						rem = t
					}
				}
				w.MapRemain = append(w.MapRemain, rem)
			}
			seed := o.Seed ^ hash(a.ID)
			// Reduces launched at slow-start hold containers the maps
			// cannot use: they are not map workers.
			workers := jr.Held - a.Job.ReducesRunning
			if workers < 1 {
				workers = 1
			}
			w.ReduceHeld = a.Job.ReducesRunning
			w.ReduceOn = ReduceKinds(model, a.Job.RunningReduceNodes, o.NodeTypeOf)
			if !o.WholeRunningReduces {
				w.ReduceLeft = ReduceLefts(w.Maps+len(a.Job.RunningMaps) > 0, a.Job.RunningReduces)
			}
			if o.ReduceRates {
				w.ReduceRemain = ReduceRemains(w.Maps+len(a.Job.RunningMaps) > 0, a.Job.RunningReduces, a.Job.RunningReducesElapsed, jr.JobAge.Seconds())
			}
			jr.Remaining = w.Maps + len(a.Job.RunningMaps) + w.Reduces
			if o.OwnMaps {
				model = WithOwnMaps(model, a.Job.CompletedMaps)
			}
			d := Simulate(model, w, workers, nil, o.Samples, seed)
			jr.Method = "monte-carlo"
			jr.Stage = StageOf(a.Job.MapsCompleted, a.Job.MapsTotal)
			jr.ModelRemain = d.Quantile(0.5)
			jr.ResidualKey = ResidualKeyOf(class, o.SplitTypedReduces && w.ReduceOn != nil)
			rs := o.Residuals.Of(jr.ResidualKey, jr.Stage)
			if o.NormalizedResiduals {
				jr.ModelSpread = LogSpread(d)
				rs = Scaled(rs, jr.ModelSpread)
			}
			if rs != nil {
				d = Calibrated(jr.ModelRemain, rs)
				d.Conformal = !o.StepCDF
				jr.Residuals = len(rs)
			}
			p50 := pointRemain(d, jr.ModelRemain, rs, o.MedianPoint)
			if o.PoolEarly {
				pooled := o.Residuals.Pooled
				if o.PoolEB {
					pooled = o.Residuals.PooledEB
				}
				if ps := pooled(jr.ResidualKey, jr.Stage, o.PoolBelow); ps != nil {
					d = Calibrated(jr.ModelRemain, ps)
					d.Conformal = !o.StepCDF
					jr.Pooled = len(ps)
					rs = ps
				}
			}
			if pits := o.Recalibration.Of(RecalKeyOf(jr.ResidualKey, jr.Residuals), jr.Stage); pits != nil {
				d.Recal = pits
				jr.Recalibrated = len(pits)
			}
			jr.Dist = d
			jr.P50 = snap.Time.Add(secs(p50))
			jr.P90 = snap.Time.Add(secs(d.Quantile(0.9)))
			for _, q := range []float64{0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 1} {
				jr.CDF = append(jr.CDF, [2]float64{d.Quantile(q), q})
			}
			if hasGoal {
				left := goal.Deadline.Sub(snap.Time).Seconds()
				p := d.P(left)
				jr.PMeet = &p
				need, ok := minContainers(model, w, rs, o.StepCDF, left, o.Confidence, maxW, o.Samples/2, seed)
				jr.Needed = need
				switch {
				case p >= math.Min(o.Confidence, d.Reach()):
					jr.Verdict = OnTrack
				case ok:
					jr.Verdict = AtRisk
				default:
					jr.Verdict = CannotMeet
				}
			}
		default:
			jr.Method = "extrapolation"
			elapsed := snap.Time.Sub(a.StartedTime)
			if jr.Progress > 0.01 {
				rem := time.Duration(float64(elapsed) * (1 - jr.Progress) / jr.Progress)
				jr.P50, jr.P90 = snap.Time.Add(rem), snap.Time.Add(rem*13/10)
			}
			switch {
			case !hasGoal:
			case !hasModel:
				// The extrapolated P50/P90 stay on show, but without a
				// model of the class there is no basis for a verdict.
				jr.Verdict = UnknownVerdict(class)
			case jr.P50.IsZero():
				jr.Verdict = "unknown (no progress yet)"
			case jr.P90.Before(goal.Deadline):
				jr.Verdict = OnTrack
			default:
				jr.Verdict = AtRisk
			}
		}
		if hasGoal {
			g := goal.Deadline
			jr.Deadline = &g
		} else {
			jr.Verdict = NoGoal
		}
		qr := byQueue[a.Queue]
		if qr == nil {
			qr = &QueueReport{Queue: a.Queue}
			if o.QueueMax != nil {
				qr.MaxAllowed = o.QueueMax(a.Queue)
			}
			byQueue[a.Queue] = qr
		}
		if jr.Verdict == AtRisk || jr.Verdict == CannotMeet {
			qr.AtRisk++
		}
		if hasGoal {
			qr.Needed += jr.Needed
		}
		qr.Jobs = append(qr.Jobs, jr)
	}
	out := make([]QueueReport, 0, len(byQueue))
	for _, q := range byQueue {
		sort.Slice(q.Jobs, func(i, j int) bool { return q.Jobs[i].AppID < q.Jobs[j].AppID })
		out = append(out, *q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Queue < out[j].Queue })
	return out
}

// pointRemain is the outlook's point estimate (P50, seconds from now): the
// model's p50 times the residuals' shrunk correction (ShrunkRatio) when
// the outlook is calibrated, else (or with median) the distribution's
// median. The distribution behind P90, the CDF and P(meet) keeps the full
// correction: it is what calibrates P(meet) (Calibrated).
func pointRemain(d Distribution, modelRemain float64, residuals []float64, median bool) float64 {
	if median || residuals == nil {
		return d.Quantile(0.5)
	}
	return modelRemain * ShrunkRatio(residuals)
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// hash is FNV-1a, to give each job its own reproducible stream.
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
