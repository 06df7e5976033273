package deadline

import (
	"math"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// OutlookStage is one unfinished stage of an Outlook (a Spark app's):
// its tasks left (running or pending), those running, one task's run time
// on the app's executors (the median) and the log spread of its tasks.
type OutlookStage struct {
	Tasks, Active int
	Task          time.Duration
	LogSD         float64
}

// StagesRemain is the remaining time of stages run one after another on
// slots task slots (sparkobs.Predict's model): each stage in waves of its
// tasks left over the slots, whole waves at the median, the last ending
// with its slowest task (the expected maximum of its k tasks' lognormal
// times, Blom's approximation of the normal order statistic), running
// tasks half done on average; and the log spread of the remaining time,
// each stage's weighted by its share. ok is false when a stage's task
// time is unknown or there is no slot.
func StagesRemain(stages []OutlookStage, slots int) (remain time.Duration, logSpread float64, ok bool) {
	ok = slots > 0
	spread := 0.0
	for _, s := range stages {
		if s.Tasks <= 0 {
			continue
		}
		if s.Task <= 0 || slots <= 0 {
			ok = false
			continue
		}
		waves := math.Ceil(float64(s.Tasks) / float64(slots))
		k := float64(s.Tasks) - (waves-1)*float64(slots)
		z := distuv.UnitNormal.Quantile((k - 0.375) / (k + 0.25))
		last := math.Exp(s.LogSD * math.Max(z, 0))
		// The running tasks are the first wave's, half done on average:
		// the share of that wave running is of the tasks it holds (all of
		// them in a stage's last wave), not of the slots.
		first := math.Min(float64(slots), float64(s.Tasks))
		w := waves - 1 + last - 0.5*math.Min(1, float64(s.Active)/first)
		remain += time.Duration(w * float64(s.Task))
		spread += w * float64(s.Task) * s.LogSD
	}
	if remain > 0 {
		logSpread = spread / float64(remain)
	}
	return remain, logSpread, ok
}

// pMeetLognormal is P(remaining ≤ left) for a lognormal with median
// remain and log spread sd (a step at remain when sd is 0).
func pMeetLognormal(remain time.Duration, sd, left float64) float64 {
	m := remain.Seconds()
	switch {
	case left <= 0:
		return 0
	case m <= 0:
		return 1
	case sd <= 0:
		if left >= m {
			return 1
		}
		return 0
	}
	return distuv.UnitNormal.CDF(math.Log(left/m) / sd)
}

// executorsNeeded is the search dynamic allocation makes of a Spark
// app's goal (issue 36): the fewest executors, ExecutorCores task slots
// each, whose remaining time (StagesRemain over the outlook's stages)
// meets left seconds with P ≥ confidence, trying up to limit executors
// (beyond the executors the largest stage's tasks can fill, more change
// nothing). ok is false when limit executors do not meet it; n is then
// limit. The stages' task times are those on the executors the app holds
// now: new executors are taken to be of the same mix.
func executorsNeeded(o Outlook, left, confidence float64, limit int) (n int, ok bool) {
	if limit < 1 {
		limit = 1
	}
	most := 1
	for _, s := range o.Stages {
		most = max(most, (s.Tasks+o.ExecutorCores-1)/o.ExecutorCores)
	}
	for e := 1; e <= min(limit, most); e++ {
		r, sd, known := StagesRemain(o.Stages, e*o.ExecutorCores)
		if known && pMeetLognormal(r, sd, left) >= confidence {
			return e, true
		}
	}
	return limit, false
}
