package deadline

import (
	"math"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// Outlook is a running app's remaining work predicted outside the
// MapReduce phase model and handed to Report as a value (issue 36: a
// Spark app's stages, sparkobs.Predict); Report gives it P50/P90,
// P(meet) and a verdict as it does a MapReduce job's.
type Outlook struct {
	// Remain is the predicted remaining time (the median).
	Remain time.Duration
	// LogSpread is the standard deviation of the log remaining time:
	// lognormal around Remain. The caller's stand-in for it is the
	// stage's per-task log spread, wider than a many-wave remainder's
	// (so P(meet) errs towards "at risk").
	LogSpread float64
	// Tasks are the tasks left (running or pending).
	Tasks int
	// Known is false when the remaining work has no basis (a stage's
	// task time is neither measured nor learned, or no executor runs).
	Known bool
	// Method names the prediction (e.g. "spark-stages").
	Method string
	// Stages are the app's unfinished stages (StagesRemain), ExecutorCores
	// the task slots of one executor and MaxExecutors
	// spark.dynamicAllocation.maxExecutors (0: not known): with them the
	// report searches the executors the goal needs and may say "cannot
	// meet" (executorsNeeded); without, Needed is what the app holds.
	Stages        []OutlookStage
	ExecutorCores int
	MaxExecutors  int
}

// outlookPoints is how many quantiles stand for an Outlook's lognormal.
const outlookPoints = 200

// OutlookDistribution is an Outlook's remaining time as a Distribution
// (seconds): outlookPoints evenly spaced quantiles of the lognormal with
// median Remain and log spread LogSpread.
func OutlookDistribution(o Outlook) Distribution {
	med := math.Max(o.Remain.Seconds(), 0)
	t := make([]float64, outlookPoints)
	for i := range t {
		z := distuv.UnitNormal.Quantile((float64(i) + 0.5) / outlookPoints)
		t[i] = med * math.Exp(o.LogSpread*z)
	}
	return Distribution{T: t}
}

// outlookVerdict fills jr from an app's Outlook: P50/P90/CDF, and with a
// goal P(meet) and the verdict. With the Outlook's stages and executor
// size, Needed is the executors the goal needs at the confidence
// (executorsNeeded, up to maxW — the most containers its queue may hold
// — and MaxExecutors when known) and an app that even maxW cannot bring
// in time "cannot meet even with the whole queue". Without them, what
// more executors would change is not known: the app is at most "at risk"
// and Needed is the containers it holds, the ones its Outlook runs on (so
// the decision's goal steps neither lend them away nor claim more on a
// guess).
func outlookVerdict(jr *JobReport, o Outlook, now time.Time, goal *time.Time, confidence float64, maxW int) {
	jr.Method = o.Method
	if jr.Method == "" {
		jr.Method = "outlook"
	}
	jr.Remaining = o.Tasks
	if !o.Known {
		if goal != nil {
			jr.Verdict = "unknown (no task times for its stages yet)"
		}
		return
	}
	d := OutlookDistribution(o)
	jr.Dist = d
	jr.ModelRemain = d.Quantile(0.5)
	jr.P50 = now.Add(secs(o.Remain.Seconds()))
	jr.P90 = now.Add(secs(d.Quantile(0.9)))
	for _, q := range []float64{0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 1} {
		jr.CDF = append(jr.CDF, [2]float64{d.Quantile(q), q})
	}
	if goal == nil {
		return
	}
	left := goal.Sub(now).Seconds()
	p := d.P(left)
	jr.PMeet = &p
	if len(o.Stages) == 0 || o.ExecutorCores <= 0 {
		jr.Needed, jr.NeededIsHeld = jr.Held, true
		if p >= confidence {
			jr.Verdict = OnTrack
		} else {
			jr.Verdict = AtRisk
		}
		return
	}
	limit := maxW
	if o.MaxExecutors > 0 {
		limit = min(limit, o.MaxExecutors)
	}
	need, ok := executorsNeeded(o, left, confidence, limit)
	jr.Needed = need
	switch {
	case p >= confidence:
		jr.Verdict = OnTrack
	case ok:
		jr.Verdict = AtRisk
	default:
		jr.Verdict = CannotMeet
	}
}
