package decide

import (
	"fmt"
	"maps"
	"slices"
)

// goalRouteStep routes a queue running jobs with goals to the labelled
// partition where its classes run fastest, when they run there at least
// goalRouteMinGain times their rate on the default partition, and sends
// every other queue the plan homed there back to the default partition,
// so the goal jobs find the partition's containers as they free (the
// deadline reservations that follow then hold them in that partition).
// When several goal queues gain in the same partition, the largest gain
// takes it (ties by queue path).
//
// The deadline bounds' least work is n·μ on the fastest node type
// (Malekimajd's n·μ, digest 001; sim.Scenario.MinWork): a goal job's maps
// on slower nodes cost container-hours its goal did not need, and time.
// Measured on hetero-100-tight (`go run ./testenv/bench -only workloads
// -rows tight -seeds 3`, then -first-seed 4): without this step 63% of the
// goal jobs' container-hours above that least work were train maps (4× on
// GPU) on CPU nodes, and train_004 (98 maps, 4 s of slack) missed its goal
// on seeds 1 and 3 with all its maps on CPU nodes.
//
// The plan's own routing (psPlanStep) weighs the queue's PS against the
// others'; a goal job gains more from its maps' speed than its share of
// PS says, as long as the partition is not shared with another queue
// homed there: routing the goal queue alone, the other queues left where
// the plan homed them, made adhoc's crypto goal jobs wait 40–50 s for
// their first maps on the GPU partition (161 of 171 goals against 165).
//
// The route is a home change like any other and waits out the rate
// limit's 2-minute interval. Marking it urgent so it passes at once (the
// deadline reservations' exception) was measured and reverted: the
// container-hours over the minimum fell from 1.32× to 1.27× on seeds 1–3,
// 4–6 and 7–9 alike, but goals met fell from 169/171, 165/170 and 167/172
// to 166/171, 163/170 and 163/172. The train goal job submitted at
// 00:00:14 runs every map on CPU nodes either way (0.062–0.065 of the
// goal jobs' minimum on seeds 1–3, of the 0.30 their maps use over it):
// its queue is idle at the first cycle, and nothing in the decision says
// which classes an idle queue will run.
//
// Every goal map over its minimum there starts within 30 s of its job's
// submission (the tight rows' "started within 30s" figure: +0.297 of the
// maps' +0.302), so only a home the queue already had when the job came
// chooses its partition; a route made after the job is seen serves the
// queue's next jobs. Three more variants were measured on seeds 1–3 and
// reverted: holding a plan made while no queue has work (so the route at
// 00:00:30 is not held by the interval the write at 00:00:00 started)
// 1.28× but 165/171 met, the same loss as the urgent route (marking urgent
// every goal claim above its queue's live guarantee, at risk or not, 1.27×
// and 167/171); homing a goal queue gaining ≥1.5× (adhoc's crypto) beside
// the routed one 1.25× but 124/171 met and jobs without goals 1.15× of
// stock — gated on the partition's slots holding both queues' demand it
// never fired. The gpu partition is full with root.ml alone: 160
// containers (16 vcores a node) over a 23.5-minute run are ~226k
// container-s, and every train job's maps on gpu (goal or not: they share
// root.ml) need ~198k.
//
// The figures above were measured while the plan raised every planned
// queue's maximum-capacity to 100. Since the ceilings step keeps the
// admin's (step_ceilings.go) the same rows give 171/171, 169/170 and
// 169/172 met and 1.26-1.27×; still +0.239 of the maps' +0.244 started
// within 30 s of submission.
//
// A goal job's first map starts a median 5.7 s after its submission
// (fastest 5 s: the AM's start; the tight rows' "first map" figure), so
// a cycle would have to come within seconds of the arrival to choose its
// first wave. Shorter cycles do worse: `-tight-cycle 5s` and `10s` gave
// 1.36× and 1.37× with 170/171 met, against 1.26× and 171/171 at 30 s;
// train's goal maps on CPU nodes rose from +0.066 to +0.171 of the
// minimum (not traced further; a likely cause is that homes follow each
// queue's idle spells sooner).
//
// Ablation (issue 32: keep a step only if removing it costs a held-out
// figure), on the tuning clusters 1–8 (gen.TuningSeeds), one run seed, at
// 732e70b: go run ./testenv/bench -only heldout -heldout-tuning -heldout-n 8
// -heldout-ablate "route gain,goal route,served first,goal jobs keep what
// they run,calibrationReturn,restores" (26 min wall on a shared 2-CPU
// machine; full sidecar: 2/8 clusters with a class >5% slower than stock,
// 3/8 >2%, mean 0.667× stock, 0.881× best static, worst class 1.48×, 10.92
// reversals/queue-hour): removing it changed no figure but the worst class,
// 1.49× against 1.48× (mean 1.000× the full sidecar's): nothing measurable
// on generated clusters; its case is hetero-100-tight's (above), not
// measured without it here.
type goalRouteStep struct{}

// goalRouteMinGain is the least speed-up on a labelled partition over the
// default one for which a goal queue is routed there. A labelled partition
// is small (hetero-100: 10 of 100 nodes), so only a large gain pays for
// the wait for its containers. Measured on hetero-100-tight seeds 1–3: at
// 1.5 (crypto, learned 1.7× on GPU, routed too when no train goal job
// runs) 165/171 goals met and 1.36× the least work; at 3 (train only,
// 3.4×) 169/171 and 1.32×; seeds 4–6 166/170 and 7–9 169/172 (162/170
// and 162/172 without the step).
const goalRouteMinGain = 3.0

func (goalRouteStep) Name() string { return "goal route" }

func (goalRouteStep) Run(s *decideState) error {
	goals := queuesWithGoals(s.Deadlines)
	gain := func(i int, p string) float64 {
		qp := s.Plan.Queues[i]
		if qp.Rate[""] <= 0 {
			return 0
		}
		return qp.Rate[p] / qp.Rate[""]
	}
	// Each goal queue's best labelled partition, then each partition's
	// queue with the largest gain there.
	taken := map[string]int{}
	for i, qp := range s.Plan.Queues {
		if !goals[qp.Path] || qp.Calibrating != "" {
			continue
		}
		best, bestGain := "", 0.0
		for _, p := range slices.Sorted(maps.Keys(qp.Capacity)) {
			if g := gain(i, p); p != "" && g >= goalRouteMinGain && g > bestGain {
				best, bestGain = p, g
			}
		}
		if best == "" {
			continue
		}
		j, ok := taken[best]
		if !ok || bestGain > gain(j, best) || bestGain == gain(j, best) && qp.Path < s.Plan.Queues[j].Path {
			taken[best] = i
		}
	}
	for _, p := range slices.Sorted(maps.Keys(taken)) {
		i := taken[p]
		g := gain(i, p)
		homeAlone(s, i, p,
			fmt.Sprintf("runs jobs with goals %.1f× faster on %s than on the default partition: routed there, alone", g, p),
			fmt.Sprintf("back to the default partition: %s serves %s's jobs with goals (%.1f× faster there)", p, s.Plan.Queues[i].Path, g))
	}
	return nil
}

// homeAlone homes queue i in partition p (reason, when that is a change)
// and sends every other queue the plan homed there back to the default
// partition (others), except queues sent to calibrate there and queues
// that may not use the default partition.
func homeAlone(s *decideState, i int, p, reason, others string) {
	qp := &s.Plan.Queues[i]
	if qp.Home != p {
		qp.Home = p
		qp.Reason = reason
	}
	for k := range s.Plan.Queues {
		other := &s.Plan.Queues[k]
		if k == i || other.Home != p || other.Calibrating != "" {
			continue
		}
		if _, ok := other.Capacity[""]; !ok {
			continue
		}
		other.Home = ""
		other.Reason = others
	}
}
