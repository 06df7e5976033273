package sparkobs

import (
	"math"
	"sort"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/spark"
)

// TaskTimes are the learned task run times of Spark stage classes per
// executor type: the median executorRunTime of the history's samples,
// and their spread.
type TaskTimes map[string]map[string]TaskTime

// TaskTime is a stage class's task run time on one executor type: the
// median, and the standard deviation of the log run times (a wave ends
// with its slowest task).
type TaskTime struct {
	Median time.Duration
	LogSD  float64
}

// TaskTimesFrom computes TaskTimes from the calibration history's Spark
// samples (classes with a family, calibrate.FamilySep).
func TaskTimesFrom(samples []calibrate.Sample) TaskTimes {
	by := map[string]map[string][]float64{}
	for _, s := range samples {
		if s.JobID == "" || !s.IsMap() || len(s.AttemptID) < 6 || s.AttemptID[:6] != "spark/" {
			continue
		}
		if by[s.Class] == nil {
			by[s.Class] = map[string][]float64{}
		}
		by[s.Class][s.NodeType] = append(by[s.Class][s.NodeType], s.Elapsed.Seconds())
	}
	out := TaskTimes{}
	for class, types := range by {
		out[class] = map[string]TaskTime{}
		for typ, v := range types {
			sort.Float64s(v)
			med := calibrate.Median(v)
			var ss, mean float64
			for _, x := range v {
				mean += math.Log(x) / float64(len(v))
			}
			for _, x := range v {
				ss += (math.Log(x) - mean) * (math.Log(x) - mean)
			}
			tt := TaskTime{Median: time.Duration(med * float64(time.Second))}
			if len(v) > 1 {
				tt.LogSD = math.Sqrt(ss / float64(len(v)-1))
			}
			out[class][typ] = tt
		}
	}
	return out
}

// Outlook is a running Spark app's remaining work (issue 36's deadline
// outlook): RemainingTasks of its stages not done and the time they take
// on the executors it holds.
type Outlook struct {
	RemainingTasks int
	Remaining      time.Duration
	// Known is false when a stage's task time is neither measured in
	// this run nor in the history, or the app holds no executor.
	Known bool
	// LogSpread is the stages' per-task log spread (the history's, on the
	// app's executor types), weighted by their share of Remaining: the
	// deadline report's stand-in for the remaining time's spread
	// (deadline.Outlook), wider than a many-wave remainder's.
	LogSpread float64
	// Stages are the unfinished stages as the prediction saw them (the
	// deadline report's search over more executors).
	Stages []deadline.OutlookStage
}

// Predict is an app's outlook from its stages (its last read), its task
// slots by executor type (Cycle.Slots) and the history's task times: the
// stages run one after another, each in waves of its remaining tasks over
// the slots (deadline.StagesRemain), a task taking the stage's own mean
// run time so far in this run (executorRunTime over its completed tasks),
// else the history's median on the app's executor types (their slots'
// harmonic blend: a faster type finishes more tasks). A stand-in for
// Spark's DAG, whose independent stages may overlap; dynamic allocation's
// future executors are not foreseen (the slots held now are), but the
// stages are kept (Stages) for the deadline report's search over more.
func Predict(appClass string, stages []spark.Stage, slots map[string]int, times TaskTimes) Outlook {
	total := 0
	for _, n := range slots {
		total += n
	}
	o := Outlook{Known: total > 0}
	ordered := append([]spark.Stage(nil), stages...)
	sort.Slice(ordered, func(i, j int) bool { return ordered[i].StageID < ordered[j].StageID })
	for _, s := range ordered {
		switch s.Status {
		case "COMPLETE", "SKIPPED", "FAILED":
			continue
		}
		rem := s.NumTasks - s.NumCompletedIndices
		if rem <= 0 {
			continue
		}
		o.RemainingTasks += rem
		hist, sd := blend(times[StageClass(appClass, s.Name)], slots)
		t := hist
		if s.NumCompleteTasks > 0 && s.ExecutorRunTime > 0 {
			// Its own tasks so far: a mean, where the history's is a
			// median (lognormal: mean = median·exp(σ²/2)).
			t = time.Duration(float64(spark.Millis(s.ExecutorRunTime/int64(s.NumCompleteTasks+s.NumFailedTasks+s.NumKilledTasks))) * math.Exp(-sd*sd/2))
		}
		if t <= 0 || total == 0 {
			o.Known = false
			t = 0
		}
		o.Stages = append(o.Stages, deadline.OutlookStage{Tasks: rem, Active: s.NumActiveTasks, Task: t, LogSD: sd})
	}
	var ok bool
	o.Remaining, o.LogSpread, ok = deadline.StagesRemain(o.Stages, total)
	o.Known = o.Known && (ok || len(o.Stages) == 0)
	return o
}

// blend is one task's time on slots of several types (n slots finish
// Σ n_T / t_T tasks per second) and the slots' mean log spread; 0 when a
// type's time is unknown.
func blend(byType map[string]TaskTime, slots map[string]int) (time.Duration, float64) {
	rate, n, sd := 0.0, 0, 0.0
	for typ, k := range slots {
		t, ok := byType[typ]
		if !ok || t.Median <= 0 {
			return 0, 0
		}
		rate += float64(k) / t.Median.Seconds()
		sd += float64(k) * t.LogSD
		n += k
	}
	if rate == 0 {
		return 0, 0
	}
	return time.Duration(float64(n) / rate * float64(time.Second)), sd / float64(n)
}
