package decide

import (
	"fmt"
	"math"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// sparkPlanStep puts running Spark apps into the plan's queue mixes as
// what they are (issue 36), after the demand step:
//
//   - an app's weight in its queue's mix is its tasks left (running and
//     pending, over the stages not finished: sparkobs.AppView), as a
//     MapReduce job's is its maps left; the demand step, which reads only
//     MapReduce's job, gave it 1 — beside a 300-map job a 200-task Spark
//     app counted for nothing in its queue's rate;
//   - an app whose executors hold GPUs (yarn.io/gpu in what it holds or
//     asks for at the RM, or a GPU executor type in its last Spark read)
//     is planned as its class's GPU variant (class + SparkGPUClassSuffix),
//     whose rate on a node type is the class's GPU executor type's there
//     ("gpu/gpu", calibrate.GPUExecutorSuffix). The node types the plan
//     counts slots of are the nodes' ("gpu"), so without it the plan read
//     a GPU app's rate on GPU nodes as its CPU executors' (ml: 1x instead
//     of 3x) and sent spark-mixed's ml queue home to the default
//     partition, where its GPU executors can only borrow idle GPU nodes.
//
// On a node type with no GPU executor rate (no GPUs there, or not yet
// measured) a GPU app's rate is its class's CPU executors' there: such an
// app's executors cannot run on a node without GPUs, so this errs towards
// keeping the queue where it is.
type sparkPlanStep struct {
	// Apps are the running Spark apps as last read (SparkLearner.SparkApps);
	// nil: no Spark learner, the step does nothing.
	Apps func() []sparkobs.AppView
}

// SparkGPUClassSuffix ends the planning class of a Spark app whose
// executors hold GPUs ("ml+gpu").
const SparkGPUClassSuffix = "+gpu"

func (sparkPlanStep) Name() string { return "spark apps in the plan" }

func (st sparkPlanStep) Run(s *decideState) error {
	if st.Apps == nil {
		return nil
	}
	views := map[string]sparkobs.AppView{}
	for _, v := range st.Apps() {
		views[v.AppID] = v
	}
	idx := map[string]int{}
	for i, q := range s.Queues {
		idx[q.Path] = i
	}
	gpuApps := 0
	for _, a := range s.Snap.RunningApps() {
		if !sparkobs.IsSpark(a) {
			continue
		}
		i, ok := idx[a.Queue]
		if !ok {
			continue
		}
		mix := s.Queues[i].Mix
		class := s.ClassOf(a)
		v, read := views[a.ID]
		w := 1.0
		if read {
			w = math.Max(1, float64(v.TasksActive+v.TasksPending))
		}
		planned := class
		if sparkHoldsGPUs(a, v) {
			planned = class + SparkGPUClassSuffix
			gpuApps++
		}
		// The demand step counted the app as 1 under its class.
		if mix[class] -= 1; mix[class] <= 1e-9 {
			delete(mix, class)
		}
		mix[planned] += w
	}
	s.Rates = sparkGPURates{Rates: s.Rates}
	if gpuApps > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d running Spark apps hold or ask for GPUs: planned at their GPU executors' rates", gpuApps))
	}
	return nil
}

// sparkHoldsGPUs: the app's executors hold or ask for yarn.io/gpu (the
// RM's resourceUsagesByPartition, which tells before any executor runs),
// or its last Spark read found a GPU executor.
func sparkHoldsGPUs(a cluster.App, v sparkobs.AppView) bool {
	for _, u := range a.UsageByPartition {
		if u.Used.GPUs-u.AMUsed.GPUs > 0 || u.Pending.GPUs > 0 {
			return true
		}
	}
	for typ, n := range v.Executors {
		if n > 0 && calibrate.IsGPUExecutorType(typ) {
			return true
		}
	}
	return false
}

// sparkGPURates reads a GPU variant's rate (class + SparkGPUClassSuffix)
// at the class's GPU executor type of the node type, falling back to the
// class's own rate there; every other class as Rates does.
type sparkGPURates struct{ progress.Rates }

func (r sparkGPURates) Rate(class, typ string) (float64, bool) {
	base, ok := strings.CutSuffix(class, SparkGPUClassSuffix)
	if !ok || r.Rates == nil {
		if r.Rates == nil {
			return 0, false
		}
		return r.Rates.Rate(class, typ)
	}
	if v, known := r.Rates.Rate(base, typ+calibrate.GPUExecutorSuffix); known {
		return v, true
	}
	return r.Rates.Rate(base, typ)
}
