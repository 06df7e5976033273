package sparkobs

import (
	"math"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/spark"
)

var blendSecs = 16 / 0.6 // 2 waves × 8/0.6 s

var blendWant = time.Duration(blendSecs * float64(time.Second))

func TestPredict(t *testing.T) {
	times := TaskTimes{"etl/b": {"old": {Median: 20 * time.Second}, "new": {Median: 10 * time.Second}}}
	stages := []spark.Stage{
		{StageID: 0, Name: "a", Status: "COMPLETE", NumTasks: 100, NumCompletedIndices: 100},
		// 40 of 100 done at 10 s each so far, 8 running.
		{StageID: 1, Name: "c", Status: "ACTIVE", NumTasks: 100, NumCompletedIndices: 40, NumCompleteTasks: 40, NumActiveTasks: 8, ExecutorRunTime: 400_000},
		{StageID: 2, Name: "b", Status: "PENDING", NumTasks: 16},
	}
	cases := []struct {
		name  string
		slots map[string]int
		want  time.Duration
		known bool
	}{
		// 60 left over 8 slots: 8 waves, less half a wave running: 75 s;
		// then 16 tasks: 2 waves of old's 20 s.
		{"own times, then history", map[string]int{"old": 8}, 75*time.Second + 40*time.Second, true},
		// 4 old + 4 new: 4/20 + 4/10 = 0.6 tasks/s over 8 slots: 13.3 s a task.
		{"blended history", map[string]int{"old": 4, "new": 4}, 75*time.Second + blendWant, true},
		{"no executors", nil, 0, false},
		{"history lacks a type", map[string]int{"gpu": 8}, 75 * time.Second, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := Predict("etl", stages, c.slots, times)
			if o.Known != c.known || o.RemainingTasks != 76 || (c.known && (o.Remaining-c.want).Abs() > time.Millisecond) {
				t.Errorf("got %+v, want remaining %v known %v (76 tasks)", o, c.want, c.known)
			}
		})
	}
}

// A wave ends with its slowest task: 8 tasks over 8 slots with log
// spread 0.2 take the median times exp(0.2·z), z the expected maximum of
// 8 normal draws (Blom: Φ⁻¹(7.625/8.25) ≈ 1.434).
func TestPredictLastWave(t *testing.T) {
	times := TaskTimes{"a/s": {"old": {Median: 10 * time.Second, LogSD: 0.2}}}
	o := Predict("a", []spark.Stage{{StageID: 0, Name: "s", Status: "PENDING", NumTasks: 8}}, map[string]int{"old": 8}, times)
	want := 10 * math.Exp(0.2*1.4342)
	if !o.Known || math.Abs(o.Remaining.Seconds()-want) > 0.01 || math.Abs(o.LogSpread-0.2) > 1e-9 {
		t.Errorf("got %+v, want %.2fs, log spread 0.2", o, want)
	}
}
