package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/learn"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// The deadline rows (issue 8), on the mini cluster: (a) tightness of
// Malekimajd's bounds against simulated job times, (b) the error of the
// predicted finish after 10, 20 and 50% of maps, (c) the calibration of
// P(meet), and (e) the (P2) greedy at 1,000 classes against an LP solver.
// Row (d), goals met on hetero-100 with the sidecar vs stock, is in the
// steering rows.
func init() {
	// Rows: 3 bound rows with goals + the shipped prediction's 5 on hetero-100 and on fb-2009 + greedy vs LP.
	register(Bench{Area: "deadline", Order: 60, Run: benchDeadline, Rows: 14})
}

func benchDeadline(o Options) ([]Row, error) {
	var rows []Row
	if deadlineGroup(o, "bounds") {
		r, err := boundTightness(o)
		if err != nil {
			return nil, fmt.Errorf("bound tightness: %w", err)
		}
		rows = append(rows, r...)
	}
	r, err := predictionError(o)
	if err != nil {
		return nil, fmt.Errorf("prediction: %w", err)
	}
	rows = append(rows, r...)
	if !deadlineGroup(o, "greedy") {
		return rows, nil
	}
	r, err = greedyVsLP()
	if err != nil {
		return nil, fmt.Errorf("greedy vs LP: %w", err)
	}
	return append(rows, r...), nil
}

// boundScenario is a homogeneous 10-node cluster whose only queue may hold
// 40% of it (64 containers, one of them the AM), running hetero-100's
// classes one job at a time: the fixed-slot setting the bounds assume.
func boundScenario() (*sim.Scenario, error) {
	base, err := sim.LoadScenario("hetero-100")
	if err != nil {
		return nil, err
	}
	sc := *base
	sc.Name = "bounds"
	sc.Labels = nil
	sc.NodeTypes = []sim.NodeTypeSpec{{Name: "cpu", Count: 10, MemoryMB: 65536, VCores: 16}}
	sc.Racks = 1
	sc.Classes = nil
	for _, c := range base.Classes {
		c.Speed = nil
		sc.Classes = append(sc.Classes, c)
	}
	sc.Conf = map[string]string{
		"yarn.scheduler.capacity.maximum-am-resource-percent": "0.5",
		"yarn.scheduler.capacity.node-locality-delay":         "0",
		"yarn.scheduler.capacity.root.queues":                 "q,idle",
		"yarn.scheduler.capacity.root.q.capacity":             "40",
		"yarn.scheduler.capacity.root.q.maximum-capacity":     "40",
		"yarn.scheduler.capacity.root.idle.capacity":          "60",
	}
	sc.Generators = nil
	sc.Jobs = nil
	at := time.Minute
	for run := 0; run < 3; run++ {
		for _, c := range sc.Classes {
			sc.Jobs = append(sc.Jobs, sim.JobSpec{At: at, Name: fmt.Sprintf("%s-%d", c.Name, run), Class: c.Name, Queue: "q",
				User: "etl", Maps: 200, Reduces: 8, Repeat: 1, Tags: []string{"jobclass=" + c.Name}})
			at += 2 * time.Hour
		}
	}
	return &sc, nil
}

// finishedJobs runs a scenario to the end and reads its jobs back from the
// JobHistory REST API, as the sidecar would.
func finishedJobs(sc *sim.Scenario, seed int64) ([]cluster.App, error) {
	c, err := sim.NewCluster(sc, seed)
	if err != nil {
		return nil, err
	}
	if !c.RunUntilDone(7 * 24 * time.Hour) {
		return nil, fmt.Errorf("%s seed %d did not finish", sc.Name, seed)
	}
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	// Every task of each job: the bounds are checked against the whole
	// job's measured time and profile, not the calibration's sample of its
	// tasks (yarn.Config.HistoryTasksPerJob).
	client, err := yarn.New(yarn.Config{RMAddresses: []string{srv.URL}, JHSAddress: srv.URL, HistoryTasksPerJob: -1})
	if err != nil {
		return nil, err
	}
	return client.FinishedJobs(context.Background(), time.Time{})
}

func boundTightness(o Options) ([]Row, error) {
	sc, err := boundScenario()
	if err != nil {
		return nil, err
	}
	history, err := finishedJobs(sc, 101)
	if err != nil {
		return nil, err
	}
	profiles := map[string]deadline.Profile{}
	for _, a := range history {
		if a.Job != nil {
			if _, ok := profiles[a.Name[:len(a.Name)-2]]; !ok {
				profiles[a.Name[:len(a.Name)-2]] = deadline.ProfileFromAttempts(a.Job.Attempts)
			}
		}
	}
	const s = 63 // task containers: 40% of 160, less the AM's
	var over, under, avgErr []float64
	inside := 0
	// The same jobs against the bounds of a job running alone on free
	// slots (deadline.Profile.AloneTimes: Prop. 2.1 and a longest-task
	// floor), the setting of this scenario; per class for the breakdown.
	var aOver, aUnder, aAvgErr []float64
	aInside := 0
	aByClass := map[string][]float64{}
	seeds := 3
	if o.Quick {
		seeds = 1
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		jobs, err := finishedJobs(sc, seed)
		if err != nil {
			return nil, err
		}
		for _, a := range jobs {
			p, ok := profiles[a.Name[:len(a.Name)-2]]
			if !ok || a.Job == nil {
				continue
			}
			// The bounds cover the job from its first task to its end.
			first := a.Job.FinishTime
			for _, at := range a.Job.Attempts {
				if at.StartTime.Before(first) {
					first = at.StartTime
				}
			}
			actual := a.Job.FinishTime.Sub(first).Seconds()
			low, up, avg := p.Bounds()
			tl, tu := low.Time(1, s, s), up.Time(1, s, s)
			avgErr = append(avgErr, math.Abs(avg.Time(1, s, s)-actual)/actual)
			over = append(over, (tu-actual)/actual)
			under = append(under, (actual-tl)/actual)
			if actual >= tl && actual <= tu {
				inside++
			}
			al, au, aa := p.AloneTimes(s)
			aOver = append(aOver, (au-actual)/actual)
			aUnder = append(aUnder, (actual-al)/actual)
			aAvgErr = append(aAvgErr, math.Abs(aa-actual)/actual)
			cl := a.Name[:len(a.Name)-2]
			aByClass[cl] = append(aByClass[cl], (aa-actual)/actual)
			if actual >= al && actual <= au {
				aInside++
			}
		}
	}
	n := len(over)
	return []Row{
		{Area: "deadline", Name: fmt.Sprintf("(a) upper bound vs simulated time, %d jobs of 4 classes, 63 containers each (mean of (T_up−T)/T)", n),
			Figure: fmt.Sprintf("%+.1f%%", 100*mean(over)), Baseline: "Malekimajd: within 14% on average", Ratio: fmt.Sprintf("%d/%d jobs within [T_low, T_up]", inside, n), Goal: "≤10%"},
		{Area: "deadline", Name: "(a) lower bound vs simulated time (mean of (T−T_low)/T)", Figure: fmt.Sprintf("%+.1f%%", 100*mean(under)), Detail: true},
		{Area: "deadline", Name: "(a) T_avg = (T_low+T_up)/2 vs simulated time (mean |error|)", Figure: fmt.Sprintf("%.1f%%", 100*mean(avgErr)), Goal: "≤10%"},
		{Area: "deadline", Name: "(a) alone-job bounds (Prop. 2.1 upper, longest-task floor): upper, lower (means as above)",
			Figure: fmt.Sprintf("%+.1f%%, %+.1f%%", 100*mean(aOver), 100*mean(aUnder)), Ratio: fmt.Sprintf("%d/%d jobs within [T_low, T_up]", aInside, n), Detail: true},
		{Area: "deadline", Name: "(a) alone-job T_avg vs simulated time (mean |error|; profiles from seed 101, scored on seeds 1-3)",
			Figure: fmt.Sprintf("%.1f%%", 100*mean(aAvgErr)), Ratio: "signed mean per class: " + perClass(aByClass), Goal: "≤10%"},
	}, nil
}

// predictionError runs hetero-100 under stock capacities with the models
// learned from the previous day's run, observes it through REST every 10
// virtual seconds and, when a job passes 10, 20 and 50% of its maps,
// records the deadline report's predicted finish (p50) and its CDF. The
// error is |predicted − actual| / actual completion time from submission.
//
// The same rows on fb-2009 (issue 18) follow unless its trace is missing
// or the run is quick; trace jobs carry jobclass tags.
func predictionError(o Options) ([]Row, error) {
	var rows []Row
	if deadlineGroup(o, "hetero-100") {
		r, err := predictionErrorOn(o, "hetero-100")
		if err != nil {
			return nil, err
		}
		rows = r
	}
	if o.Quick || !deadlineGroup(o, "fb-2009") {
		return rows, nil
	}
	fb, err := predictionErrorOn(o, "fb-2009")
	if errors.Is(err, sim.ErrTraceMissing) {
		return append(rows, Row{Area: "deadline", Name: "fb-2009", Figure: "skipped: " + err.Error()}), nil
	}
	return append(rows, fb...), err
}

func predictionErrorOn(o Options, scenario string) ([]Row, error) {
	sc, err := sim.LoadScenario(scenario)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "yarn-sidecar-bench-deadline-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	store, err := calibrate.Open(filepath.Join(dir, "h.db"))
	if err != nil {
		return nil, err
	}
	defer store.Close()
	seeds := deadlineSeeds(o)
	var points []predictionPoint
	// Residuals of the calibrated variant, learned online: a job's own
	// residuals join only when it finishes, so each prediction is scored
	// with those of runs that ended before it (and the seeds run in
	// order, each day after the last, as a daemon's history would).
	// One set per calibrated variant: a residual is the ratio to that
	// variant's own model prediction.
	resOf := map[int]*deadline.Residuals{4: deadline.NewResiduals(), 5: deadline.NewResiduals(), 8: deadline.NewResiduals(), 9: deadline.NewResiduals(), 10: deadline.NewResiduals(), 11: deadline.NewResiduals(),
		12: deadline.NewResiduals(), 13: deadline.NewResiduals(), 14: deadline.NewResiduals(), 15: deadline.NewResiduals(), 16: deadline.NewResiduals(),
		17: deadline.NewResiduals(), 18: deadline.NewResiduals(), 19: deadline.NewResiduals(),
		20: deadline.NewResiduals(), 21: deadline.NewResiduals(), 22: deadline.NewResiduals()}
	// Variants whose residuals are scores normalized by each outlook's
	// own spread (deadline.NormalizedScore).
	normalized := map[int]bool{17: true}
	// PITs of the recalibrated variants' outlooks, learned online as the
	// residuals are (deadline.Recalibration).
	recalOf := map[int]*deadline.Recalibration{12: deadline.NewRecalibration(), 13: deadline.NewRecalibration(), 14: deadline.NewRecalibration()}
	res := resOf[4]
	jobsByClass := map[string]int{}
	for _, seed := range seeds {
		// Yesterday's run → history → per-class models, as the learner does.
		w, err := sim.NewCluster(sc, seed+100)
		if err != nil {
			return nil, err
		}
		if !w.RunUntilDone(48 * time.Hour) {
			return nil, fmt.Errorf("warm-up did not finish")
		}
		wsrv := httptest.NewServer(w.Handler())
		wc, err := yarn.New(yarn.Config{RMAddresses: []string{wsrv.URL}, JHSAddress: wsrv.URL})
		if err != nil {
			wsrv.Close()
			return nil, err
		}
		learner := &learn.HistoryLearner{Source: wc, Store: store, ClassKey: calibrate.ClassKey("tag")}
		snap, err := wc.Observe(context.Background(), yarn.ObserveOptions{Now: w.Now()})
		if err == nil {
			err = learner.Learn(context.Background(), snap)
		}
		wsrv.Close()
		if err != nil {
			return nil, err
		}
		models := learner.Models()

		c, err := sim.NewCluster(sc, seed)
		if err != nil {
			return nil, err
		}
		srv := httptest.NewServer(c.Handler())
		// Running reduces are read for the node-typed candidates.
		client, err := yarn.New(yarn.Config{RMAddresses: []string{srv.URL}, JHSAddress: srv.URL, RunningReduces: true})
		if err != nil {
			srv.Close()
			return nil, err
		}
		seen := map[string]int{} // app → last stage recorded
		// Task containers each job holds at each step while maps remain:
		// is the count the prediction assumes constant constant?
		heldTrace := map[string][]float64{}
		heldIdx := map[int]int{}
		var pending []predictionPoint
		appOf := map[int]string{}
		// Raw model predictions awaiting their job's end: app → residuals
		// with Ratio holding the predicted remaining seconds until then.
		open := map[int]map[string][]deadline.Residual{}
		openAt := map[int]map[string][]time.Time{}
		openSpread := map[int]map[string][]float64{}
		// Outlooks of the recalibrated variants awaiting their job's end:
		// their PIT is taken under the distribution without the map.
		type openPIT struct {
			key   string
			stage int
			at    time.Time
			dist  deadline.Distribution
		}
		openPITs := map[int]map[string][]openPIT{}
		for v := range recalOf {
			openPITs[v] = map[string][]openPIT{}
		}
		for v := range resOf {
			open[v], openAt[v], openSpread[v] = map[string][]deadline.Residual{}, map[string][]time.Time{}, map[string][]float64{}
		}
		running := map[string]bool{}
		for !c.Done() {
			c.Step(10 * time.Second)
			snap, err := client.Observe(context.Background(), yarn.ObserveOptions{Now: c.Now(), Jobs: true})
			if err != nil {
				srv.Close()
				return nil, err
			}
			now := map[string]bool{}
			for _, a := range snap.RunningApps() {
				now[a.ID] = true
			}
			gone := false
			for id := range running {
				if !now[id] {
					gone = true
				}
			}
			if gone {
				for _, r := range c.Results() {
					if !running[r.AppID] || now[r.AppID] || r.Finish.IsZero() {
						continue
					}
					if len(open[4][r.AppID]) > 0 {
						jobsByClass[open[4][r.AppID][0].Class]++
					}
					for v, rs := range resOf {
						for i, x := range open[v][r.AppID] {
							x.Ratio = r.Finish.Sub(openAt[v][r.AppID][i]).Seconds() / x.Ratio
							if normalized[v] {
								x.Ratio = deadline.NormalizedScore(x.Ratio, openSpread[v][r.AppID][i])
							}
							rs.Add(x)
						}
						delete(open[v], r.AppID)
						delete(openAt[v], r.AppID)
						delete(openSpread[v], r.AppID)
					}
					for v, rc := range recalOf {
						for _, x := range openPITs[v][r.AppID] {
							rc.Add(x.key, x.stage, x.dist.Base().P(r.Finish.Sub(x.at).Seconds()))
						}
						delete(openPITs[v], r.AppID)
					}
				}
			}
			running = now
			var due []cluster.App
			for _, a := range snap.RunningApps() {
				if a.Job == nil || a.Job.MapsTotal == 0 {
					continue
				}
				if a.Job.MapsCompleted < a.Job.MapsTotal {
					heldTrace[a.ID] = append(heldTrace[a.ID], float64(a.RunningContainers-1-a.Job.ReducesRunning))
				}
				frac := float64(a.Job.MapsCompleted) / float64(a.Job.MapsTotal)
				for _, st := range []int{10, 20, 50} {
					if frac*100 >= float64(st) && seen[a.ID] < st {
						due = append(due, a)
						break
					}
				}
			}
			if len(due) == 0 {
				continue
			}
			// Only the jobs due are reported on (each job's Monte-Carlo has
			// its own seed, so the others change nothing but the time).
			dueSnap := snap
			dueSnap.Apps = due
			// The baseline options are the report before running maps by
			// their own rates (TaskRemaining), the conformal CDF and running
			// reduces by the share they have left (ReduceLefts).
			opts := deadline.ReportOptions{ClassOf: calibrate.ClassKey("tag").ClassOf, Samples: 400, Seed: uint64(seed), DrawRunningMaps: true, StepCDF: true,
				WholeRunningReduces: true, MedianPoint: true}
			// The same report updated with the jobs' own finished maps: a
			// candidate measured in the same run.
			own := opts
			own.OwnMaps = true
			cal := opts
			cal.Residuals = res
			rates := opts
			rates.DrawRunningMaps = false
			rates.Residuals = resOf[5]
			rawRates := rates
			rawRates.Residuals = nil
			conf := rates
			conf.StepCDF = false
			// Candidates, each with its own residuals (a residual is the
			// ratio to the variant's own model): running reduces costed at
			// their node type's fit (deadline.ReduceKinds), and that with
			// running reduces by their own rates once the maps are done
			// (deadline.ReduceRemains).
			typed := conf
			typed.NodeTypeOf = calibrate.AddressTypeOf(snap.Nodes, calibrate.Classifier{}.Types(snap.Nodes))
			typed.Residuals = resOf[8]
			split := typed
			split.SplitTypedReduces = true
			split.Residuals = resOf[10]
			reduceRates := typed
			reduceRates.ReduceRates = true
			reduceRates.Residuals = resOf[9]
			// The previous default (11): conf with running reduces costed
			// by the share they have left once the maps are done, and P50
			// the model's p50 times the shrunk correction
			// (deadline.ShrunkRatio).
			def := conf
			def.WholeRunningReduces = false
			def.MedianPoint = false
			def.Residuals = resOf[11]
			// The previous default: P50 at the calibrated median.
			medianPoint := def
			medianPoint.MedianPoint = true
			medianPoint.Residuals = resOf[15]
			// Candidates: typed and def with P(meet) recalibrated by the
			// PITs of finished outlooks (deadline.Recalibration).
			typedRecal := typed
			typedRecal.Residuals, typedRecal.Recalibration = resOf[12], recalOf[12]
			defRecal := def
			defRecal.Residuals, defRecal.Recalibration = resOf[13], recalOf[13]
			// And the default's running reduces at their node type's fit
			// by the share they have left, recalibrated.
			defTypedRecal := defRecal
			defTypedRecal.NodeTypeOf = typed.NodeTypeOf
			defTypedRecal.Residuals, defTypedRecal.Recalibration = resOf[14], recalOf[14]
			// The report's default (16, sidecar deadlineStep): 11 with
			// running reduces at their node type's fit, not recalibrated.
			// Chosen over 11 on nine days of history (-deadline-days 9):
			// hetero-100 worst class 4.1% against 5.0%, P(meet) 3.4 against
			// 2.1 pts; fb-2009 3.1% and 2.3 pts against 3.1% and 2.8.
			defTyped := def
			defTyped.NodeTypeOf = typed.NodeTypeOf
			defTyped.Residuals = resOf[16]
			// Candidate: 16 calibrated by residuals normalized by each
			// outlook's own spread (locally weighted conformal), the
			// spread correction for typed outlooks being sharper than
			// untyped ones in the same window. Measured and not adopted
			// (go run ./testenv/bench -only deadline -rows R -seeds 3
			// [-first-seed 4]): P(meet) hetero-100 6.3/5.8 pts, fb-2009
			// 6.0/3.7 (16: 6.0/4.4, 3.5/5.6). Also tried on 16, not kept:
			// residuals used from 3 (hetero 5.1/4.6, fb 5.8/6.6) or 5
			// (5.1/4.9, 3.5/6.7) instead of 10 — a conformal distribution of
			// so few puts too much mass below its lowest score (fb's second
			// decile 0.15→0.08) — and the P50 of 16 on the distribution of
			// 11 (hetero 9.3/5.4, fb 4.3/5.9: the row's deadlines follow
			// P50); classes with fewer than 10 residuals at their stage
			// calibrated by every class's instead of the model's own
			// spread (the diagnostic row: that spread is 17-18 pts off on
			// hetero-100), on 16: hetero 5.1/5.9, fb 3.8/5.7; on 17:
			// hetero 5.3/7.3, fb 7.1/4.0.
			typedNorm := defTyped
			typedNorm.NormalizedResiduals = true
			typedNorm.Residuals = resOf[17]
			// Candidates: 16 and the default (11) with the outlooks of
			// classes short of residuals (fewer than MinN at their stage)
			// calibrated by the other classes' spread at a partially
			// pooled centre (deadline.Residuals.Pooled) instead of the
			// model's own spread; 20: 18 pooling classes with fewer than
			// 20 of their own too (ReportOptions.PoolBelow); 21: 20 with
			// the pooling's credibility estimated from the classes
			// (PoolEB, deadline.Residuals.PooledEB); 22: 20 with node-typed
			// outlooks' residuals kept apart (SplitTypedReduces). None meets
			// both goals on both scenarios and seed sets (go run
			// ./testenv/bench -only deadline -rows R -seeds 3 [-first-seed
			// 4]); P(meet) worst decile hetero-100 1–3/4–6, fb-2009 1–3/4–6
			// (16: 6.0/4.4, 3.5/5.6; 11: 4.3/4.7, 4.0/4.2): 18 5.5/5.0,
			// 4.0/5.3; 19 4.3/5.0, 3.6/4.3 (its point is 11's: 5.5% on
			// hetero 1–3); 20 4.9/4.0, 4.9/6.3; 21 4.8/3.4, 5.9/5.6; 22
			// 4.9/6.7, 4.6/4.5. The rows' resampling sd is 2 pts on
			// hetero-100 and 3 on fb-2009, as large as the differences.
			// Seeds 7–9 (-first-seed 7), hetero-100: 11 6.1% (train) and
			// 5.0 pts, 16 4.7% and 5.1, 18 5.3, 20 4.4, 21 4.6, 22 4.3% and
			// 4.2; fb-2009: every variant misses both (fb-large 10.1–10.7%
			// at 20% of maps, from 43 predictions of all classes; P(meet)
			// 11 7.0, 16 10.4, 18 11.3, 19 7.5, 20 9.8, 21 12.5, 22 9.2).
			// Also measured, not kept: 18 and 19 with those outlooks' P50
			// corrected by the pooled residuals too (18: 5.7/4.2, 4.0/5.7,
			// worst class 4.3/4.7/2.1/4.7%; 19: 4.1/4.7, 3.6/4.1, point as
			// 11); 18 pooling below 30 (6.2/4.2, 7.4/4.3); 18 with the
			// credibility estimated (5.5/4.8, 4.4/5.6); 16 with node-typed
			// outlooks' residuals kept apart (6.0/4.7, 6.3/4.7).
			typedPooled := defTyped
			typedPooled.PoolEarly = true
			typedPooled.Residuals = resOf[18]
			defPooled := def
			defPooled.PoolEarly = true
			defPooled.Residuals = resOf[19]
			typedPooled20 := typedPooled
			typedPooled20.PoolBelow = 20
			typedPooled20.Residuals = resOf[20]
			typedPooled20EB := typedPooled20
			typedPooled20EB.PoolEB = true
			typedPooled20EB.Residuals = resOf[21]
			typedPooled20Split := typedPooled20
			typedPooled20Split.SplitTypedReduces = true
			typedPooled20Split.Residuals = resOf[22]
			// Without -candidates only the report's default (16) runs: the
			// others are candidates and earlier defaults (Row.Detail).
			report := func(v int, ro deadline.ReportOptions) []deadline.QueueReport {
				if !o.Candidates && v != shippedVariant {
					return nil
				}
				return deadline.Report(dueSnap, models, ro)
			}
			variants := [][]deadline.QueueReport{report(0, opts), report(1, own), nil, nil, report(4, cal),
				report(5, rates), report(6, rawRates), report(7, conf), report(8, typed), report(9, reduceRates), report(10, split),
				report(11, def), report(12, typedRecal), report(13, defRecal), report(14, defTypedRecal),
				report(15, medianPoint), report(16, defTyped), report(17, typedNorm),
				report(18, typedPooled), report(19, defPooled), report(20, typedPooled20),
				report(21, typedPooled20EB), report(22, typedPooled20Split)}
			for _, a := range due {
				frac := float64(a.Job.MapsCompleted) / float64(a.Job.MapsTotal)
				stage := 10
				for _, st := range []int{20, 50} {
					if frac*100 >= float64(st) {
						stage = st
					}
				}
				seen[a.ID] = stage
				// Candidates 3 and 2, run only with -candidates.
				for _, predict := range []func(cluster.Snapshot, cluster.App, map[string]deadline.PhaseModel, uint64) (predictionPoint, bool){sharePrediction, steamPrediction} {
					if !o.Candidates {
						break
					}
					if pt, ok := predict(snap, a, models, uint64(seed)); ok {
						pending = append(pending, pt)
						pending[len(pending)-1].stage = stage
						appOf[len(pending)-1] = a.ID
						heldIdx[len(pending)-1] = -1
					}
				}
				for v, reports := range variants {
					for _, q := range reports {
						for _, j := range q.Jobs {
							if j.AppID != a.ID || j.P50.IsZero() || j.Method != "monte-carlo" {
								continue
							}
							pending = append(pending, predictionPoint{class: j.Class, variant: v, stage: stage, cdf: j.CDF, dist: j.Dist, predictedAt: snap.Time, submit: a.StartedTime,
								actual: j.P50, held: a.RunningContainers - 1 - a.Job.ReducesRunning, residuals: j.Residuals, pooled: j.Pooled})
							if resOf[v] != nil && j.Stage == stage && j.ModelRemain > 0 {
								open[v][a.ID] = append(open[v][a.ID], deadline.Residual{Class: j.ResidualKey, Stage: stage, Ratio: j.ModelRemain})
								openAt[v][a.ID] = append(openAt[v][a.ID], snap.Time)
								openSpread[v][a.ID] = append(openSpread[v][a.ID], j.ModelSpread)
							}
							if recalOf[v] != nil && j.Stage == stage && len(j.Dist.T) > 0 {
								openPITs[v][a.ID] = append(openPITs[v][a.ID], openPIT{key: deadline.RecalKeyOf(j.ResidualKey, j.Residuals), stage: stage, at: snap.Time, dist: j.Dist})
							}
							appOf[len(pending)-1] = a.ID
							heldIdx[len(pending)-1] = len(heldTrace[a.ID]) - 1
						}
					}
				}
			}
		}
		finish := map[string]sim.JobResult{}
		for _, r := range c.Results() {
			finish[r.AppID] = r
		}
		srv.Close()
		for i, p := range pending {
			r := finish[appOf[i]]
			predicted := p.actual // p50 stored in actual until now
			total := r.Finish.Sub(r.Submit).Seconds()
			p.errRel = math.Abs(predicted.Sub(r.Submit).Seconds()-total) / total
			p.signed = (predicted.Sub(r.Submit).Seconds() - total) / total
			p.p50 = predicted
			p.submit, p.actual = r.Submit, r.Finish
			p.job = fmt.Sprintf("%d/%s", seed, appOf[i])
			if tr := heldTrace[appOf[i]]; heldIdx[i] >= 0 && heldIdx[i] < len(tr) {
				p.heldAfter = mean(tr[heldIdx[i]:])
			}
			points = append(points, p)
		}
	}
	// What ships is variant 16's rows (the report's default); the rest,
	// candidates, earlier defaults and diagnostics, print with -candidates
	// (and only then are computed).
	rows := predictionRows(points, shippedVariant, sc.Name, shippedPrefix)
	if !o.Candidates {
		return rows, nil
	}
	rows = predictionRows(points, 0, sc.Name, "")
	rows = append(rows, heldRow(points, sc.Name))
	rows = append(rows, predictionRows(points, 1, sc.Name, "candidate, class model updated with the job's own finished maps (deadline.WithOwnMaps): ")...)
	rows = append(rows, predictionRows(points, 2, sc.Name, "candidate, STEAMEngine map extrapolation + Monte-Carlo reduce phase: ")...)
	rows = append(rows, predictionRows(points, 3, sc.Name, "candidate, Monte-Carlo on containers falling toward the queue's share (deadline.ShareWorkers): ")...)
	rows = append(rows, predictionRows(points, 4, sc.Name, "calibrated by the class's residuals (deadline.Calibrated): ")...)
	rows = append(rows, predictionRows(points, 6, sc.Name, "candidate, running maps by their own rate (deadline.TaskRemaining), uncalibrated: ")...)
	rows = append(rows, predictionRows(points, 5, sc.Name, "candidate, running maps by their own rate, calibrated (step CDF): ")...)
	rows = append(rows, predictionRows(points, shippedVariant, sc.Name, shippedPrefix)...)
	rows = append(rows, predictionRows(points, 11, sc.Name, "the previous default (16 without node types: running reduces by the share left at the class's fit): ")...)
	rows = append(rows, predictionRows(points, 15, sc.Name, "the previous default (P50 at the calibrated distribution's median): ")...)
	rows = append(rows, predictionRows(points, 7, sc.Name, "the previous default (running reduces costed whole): ")...)
	rows = append(rows, predictionRows(points, 8, sc.Name, "candidate, the previous default with running reduces at their node type's fit (deadline.ReduceKinds): ")...)
	rows = append(rows, predictionRows(points, 10, sc.Name, "candidate, node-typed reduces with their residuals kept apart (deadline.ResidualKeyOf, Mondrian conformal): ")...)
	rows = append(rows, predictionRows(points, 12, sc.Name, "candidate, node-typed reduces (8) with P(meet) recalibrated by finished outlooks' PITs (deadline.Recalibration): ")...)
	rows = append(rows, predictionRows(points, 13, sc.Name, "candidate, the previous default (11) with P(meet) recalibrated by finished outlooks' PITs (deadline.Recalibration): ")...)
	rows = append(rows, predictionRows(points, 14, sc.Name, "candidate, the report's default (16) recalibrated by finished outlooks' PITs (deadline.Recalibration): ")...)
	rows = append(rows, predictionRows(points, 9, sc.Name, "candidate, node-typed reduces and running reduces by their own rates once the maps are done (deadline.ReduceRemains): ")...)
	rows = append(rows, predictionRows(points, 17, sc.Name, "candidate, 16 calibrated by residuals normalized by each outlook's own spread (deadline.NormalizedScore, locally weighted conformal): ")...)
	rows = append(rows, predictionRows(points, 18, sc.Name, "candidate, 16 with classes short of residuals calibrated by the other classes', partially pooled (deadline.Residuals.Pooled): ")...)
	rows = append(rows, predictionRows(points, 19, sc.Name, "candidate, the previous default (11) with classes short of residuals calibrated by the other classes', partially pooled (deadline.Residuals.Pooled): ")...)
	rows = append(rows, predictionRows(points, 20, sc.Name, "candidate, 18 pooling classes with fewer than 20 residuals of their own too (PoolBelow): ")...)
	rows = append(rows, predictionRows(points, 21, sc.Name, "candidate, 20 with the pooling's credibility estimated from the classes (deadline.Residuals.PooledEB): ")...)
	rows = append(rows, predictionRows(points, 22, sc.Name, "candidate, 20 with node-typed outlooks' residuals kept apart (SplitTypedReduces, Mondrian conformal): ")...)
	rows = append(rows, calibrationSplitRow(points, []int{11, 16, 18, 20, 21, 22}, sc.Name))
	rows = append(rows, residualRow(points, res, jobsByClass, sc.Name))
	for i := range rows {
		rows[i].Detail = !strings.HasPrefix(rows[i].Name, shippedPrefix)
	}
	return rows, nil
}

// shippedVariant is the prediction variant the sidecar runs (the deadline
// report's default, deadlineStep): the one variant computed and printed
// without -candidates.
const shippedVariant = 16

// shippedPrefix names the shipped variant's rows.
const shippedPrefix = "the report's default, running maps by their own rate, running reduces at their node type's fit (deadline.ReduceKinds) by the share left once the maps are done, calibrated, conformal CDF, P50 by the shrunk correction: "

// calibrationSplitRow is a diagnostic of where a variant's P(meet) is
// off: its worst decile (and the deciles) over each of calibrationParts.
func calibrationSplitRow(all []predictionPoint, variants []int, scenario string) Row {
	pOf := func(p predictionPoint, d float64) float64 {
		if len(p.dist.T) > 0 {
			return p.dist.P(d)
		}
		return cdfAt(p.cdf, d)
	}
	var out []string
	for _, v := range variants {
		parts := calibrationParts(all, v)
		for _, k := range slices.Sorted(maps.Keys(parts)) {
			w, _, dec := calibration(parts[k], pOf, byPrediction)
			out = append(out, fmt.Sprintf("variant %d %s (%d predictions): %.1f pts [%s]", v, k, len(parts[k]), 100*w, strings.Join(dec, " ")))
		}
	}
	return Row{Area: "deadline", Name: "(c) diagnostic, " + scenario + ": P(meet) worst decile by spread source, stage and class", Ratio: strings.Join(out, "; ")}
}

// calibrationParts splits a variant's predictions by where their spread
// came from (the model's own, with fewer residuals than MinN, or
// calibrated by residuals), by stage and by class; each prediction is in
// one part of each split.
func calibrationParts(all []predictionPoint, variant int) map[string][]predictionPoint {
	parts := map[string][]predictionPoint{}
	for _, p := range all {
		if p.variant != variant {
			continue
		}
		src := "calibrated"
		switch {
		case p.pooled > 0:
			src = "pooled"
		case p.residuals == 0:
			src = "model's own spread"
		}
		for _, k := range []string{src, fmt.Sprintf("stage %d", p.stage), "class " + p.class} {
			parts[k] = append(parts[k], p)
		}
	}
	return parts
}

// deadlineSeeds are the prediction rows' seeds, -deadline-days of them
// (9; one when quick) from -first-seed. They run one after another, each
// a day of history learned online, so -seeds does not widen them. Nine,
// not three: three-day runs put the 20%-of-maps figures on a few dozen
// predictions per class and the worst P(meet) decile ±2–3 pts apart
// between seed sets, as large as the goals' margins; nine score three
// times as many (hetero-100: 1,194 at 20% of maps) with a third of the
// spread. -deadline-days 3 with -first-seed 1, 4, 7 gives the three-day
// sets.
func deadlineSeeds(o Options) []int64 {
	first := o.FirstSeed
	if first == 0 {
		first = 1
	}
	days := 9
	if o.DeadlineDays > 0 {
		days = o.DeadlineDays
	}
	var seeds []int64
	for d := range days {
		seeds = append(seeds, first+int64(d))
	}
	if o.Quick {
		seeds = seeds[:1]
	}
	return seeds
}

// residualRow counts, per class, the finished jobs whose predictions were
// scored, the residuals held at the end per stage, and the share of the
// calibrated variant's predictions that had enough residuals to use them.
func residualRow(points []predictionPoint, res *deadline.Residuals, jobs map[string]int, scenario string) Row {
	used, n := map[string]int{}, map[string]int{}
	for _, p := range points {
		if p.variant == 4 {
			n[p.class]++
			if p.residuals > 0 {
				used[p.class]++
			}
		}
	}
	counts := res.Count()
	var out []string
	for _, c := range slices.Sorted(maps.Keys(n)) {
		out = append(out, fmt.Sprintf("%s: %d jobs scored, residuals 10/20/50%% %d/%d/%d, %d/%d predictions calibrated", c, jobs[c],
			counts[c][10], counts[c][20], counts[c][50], used[c], n[c]))
	}
	return Row{Area: "deadline", Name: "(b) residuals per class, " + scenario + " (online over the seeds; at most " + fmt.Sprint(res.Max) + " per class and stage, used from " + fmt.Sprint(res.MinN) + ")",
		Figure: "", Ratio: strings.Join(out, "; ")}
}

// predictionPoint is one prediction of the (b)/(c) rows and what happened.
type predictionPoint struct {
	class string
	// 0: the report uncalibrated; 1: with own finished maps; 2: STEAMEngine;
	// 3: ShareWorkers; 4: calibrated by residuals; 5: 4 with running maps
	// by their own rates; 6: 5 uncalibrated; 7: 5 with the conformal CDF
	// (the previous default); 8: 7 with running reduces at their node
	// type's fit; 9: 8 with running reduces by their own rates once the maps
	// are done; 10: 8 with typed outlooks' residuals apart (8, 9 and 10
	// with their own residuals); 12 and 13: 8 and 11 recalibrated by the
	// PITs of finished outlooks (deadline.Recalibration); 14: 11 with
	// running reduces at their node type's fit (deadline.ReduceKinds),
	// recalibrated; 11: 7 with running reduces by the share
	// left once the maps are done (deadline.ReduceLefts) and P50 by the
	// shrunk correction (deadline.ShrunkRatio), the previous default; 15:
	// 11 with P50 at the calibrated median (the default before it); 16: 11
	// with running reduces at their node type's fit, the report's default
	// (sidecar deadlineStep); 17: 16 calibrated by
	// residuals normalized by each outlook's spread; 18 and 19: 16 and
	// 11 with classes short of residuals calibrated by the other
	// classes' (deadline.Residuals.Pooled); 20: 18 pooling classes
	// with fewer than 20 of their own; 21: 20 with the pooling's
	// credibility estimated (PooledEB); 22: 20 with node-typed outlooks'
	// residuals kept apart. 0-10 cost running reduces whole (WholeRunningReduces); 0-10, 12 and 15 put P50 at the
	// distribution's median (MedianPoint).
	variant     int
	held        int     // task containers at the prediction
	heldAfter   float64 // mean task containers held from then until the maps end
	stage       int     // 10, 20, 50
	errRel      float64
	signed      float64      // (predicted − actual) / actual
	cdf         [][2]float64 // seconds from the prediction time, P
	dist        deadline.Distribution
	p50         time.Time // the predicted finish (actual holds the real one)
	residuals   int       // calibrated variant: residuals used (0: the raw model)
	pooled      int       // other classes' residuals used instead (deadline.Residuals.Pooled)
	predictedAt time.Time
	submit      time.Time
	actual      time.Time
	job         string // seed/app, for resampling by job
}

// heldRow is a diagnostic of the Monte-Carlo's constant-containers
// assumption: per class, the median of (mean task containers held from the
// prediction until the maps end) / (held at the prediction), at 20% of maps.
func heldRow(points []predictionPoint, scenario string) Row {
	by := map[string][]float64{}
	var all []float64
	for _, p := range points {
		if p.variant == 0 && p.stage == 20 && p.held > 0 && p.heldAfter > 0 {
			r := p.heldAfter/float64(p.held) - 1
			by[p.class] = append(by[p.class], r)
			all = append(all, r)
		}
	}
	return Row{Area: "deadline", Name: "(b) diagnostic, " + scenario + ": containers held later vs at the prediction (20% of maps; median of mean-after/now − 1)",
		Figure: fmt.Sprintf("%+.1f%%", 100*median(all)), Ratio: "per class: " + perClassOf(by, median, true)}
}

// predictionRows are the (b) and (c) rows of one variant's points; prefix
// names the variant in the rows.
func predictionRows(all []predictionPoint, variant int, scenario, prefix string) []Row {
	var points []predictionPoint
	var signed []float64
	for _, p := range all {
		if p.variant == variant {
			points = append(points, p)
			signed = append(signed, p.signed)
		}
	}
	var rows []Row
	for _, st := range []int{10, 20, 50} {
		byClass := map[string][]float64{}
		signedBy := map[string][]float64{}
		var all []float64
		for _, p := range points {
			if p.stage == st {
				byClass[p.class] = append(byClass[p.class], p.errRel)
				signedBy[p.class] = append(signedBy[p.class], p.signed)
				all = append(all, p.errRel)
			}
		}
		worstClass, worst := "", 0.0
		for cl, errs := range byClass {
			if m := median(errs); m >= worst {
				worstClass, worst = cl, m
			}
		}
		var atStage []predictionPoint
		for _, p := range points {
			if p.stage == st {
				atStage = append(atStage, p)
			}
		}
		rows = append(rows, Row{Area: "deadline", Name: prefix + fmt.Sprintf("(b) predicted finish after %d%% of maps, %s, %d predictions: median error", st, scenario, len(all)),
			Figure: fmt.Sprintf("%.1f%%", 100*median(all)), Ratio: fmt.Sprintf("worst class %s %.1f%% (±%.1f%% over the jobs resampled, sd); median |error| per class: %s; signed median per class: %s",
				worstClass, 100*worst, 100*bootstrapSD(atStage, worstClassMedian, 200), perClassOf(byClass, median, false), perClassOf(signedBy, median, true)),
			Baseline: "STEAMEngine: <5% after 22% (Pi, Grep)", Goal: "≤5% median at 20%, every class"})
	}
	// (c) Calibration: for each prediction, ten deadlines spread over
	// 0.6–1.4× its own predicted rest (p50), and P(T ≤ D) from the
	// report's distribution (JobReport.Dist) where the variant has one,
	// else interpolated on its CDF points, vs what happened. Shown beside:
	// the design before, deadlines around the actual rest, which is
	// biased (TestCalibrationDesign: a perfectly calibrated forecast with
	// spread 0.15 scores about 6 points there), and the CDF points alone.
	pOf := func(p predictionPoint, d float64) float64 {
		if len(p.dist.T) > 0 {
			return p.dist.P(d)
		}
		return cdfAt(p.cdf, d)
	}
	worst, used, deciles := calibration(points, pOf, byPrediction)
	oldWorst, _, _ := calibration(points, pOf, byOutcome)
	cdfWorst, _, _ := calibration(points, func(p predictionPoint, d float64) float64 { return cdfAt(p.cdf, d) }, byOutcome)
	rows = append(rows, Row{Area: "deadline", Name: prefix + "(b) bias of the predicted finish, " + scenario + " (mean of (predicted − actual)/actual, all stages)",
		Figure: fmt.Sprintf("%+.1f%%", 100*mean(signed))})
	sd := bootstrapSD(points, func(ps []predictionPoint) float64 {
		w, _, _ := calibration(ps, pOf, byPrediction)
		return w
	}, 200)
	rows = append(rows, Row{Area: "deadline", Name: prefix + fmt.Sprintf("(c) P(meet) calibration, %s: worst decile of %d with ≥%d predictions, predicted vs observed share met", scenario, used, minPerDecile),
		Figure: fmt.Sprintf("%.1f pts", 100*worst), Ratio: fmt.Sprintf("±%.1f pts over the jobs resampled (sd); deadlines around the actual rest (biased design): %.1f pts, and from the CDF's points %.1f pts; deciles predicted→observed: %s", 100*sd, 100*oldWorst, 100*cdfWorst, strings.Join(deciles, " ")), Goal: "≤5 pts"})
	return rows
}

// minPerDecile: issue 18 asks for at least 30 predictions per decile.
const minPerDecile = 30

// Centres of the calibration deadlines: the prediction's own rest (p50),
// chosen without knowing the outcome, or the actual rest. Deadlines that
// depend on the outcome bias the score even for a perfect forecast: a
// deadline short of the real end is drawn only below it, so low P(meet)s
// are met more often than they say (TestCalibrationDesign).
func byPrediction(p predictionPoint) float64 { return p.p50.Sub(p.predictedAt).Seconds() }
func byOutcome(p predictionPoint) float64    { return p.actual.Sub(p.predictedAt).Seconds() }

// calibration scores P(meet) (pOf: a point's P(T ≤ d), d seconds after
// the prediction) on ten deadlines per prediction spread over 0.6–1.4×
// centre(p): the worst |predicted − observed| over the deciles with at
// least 30 (issue 18; fewer are shown, not scored), how many were scored,
// and each decile.
func calibration(points []predictionPoint, pOf func(predictionPoint, float64) float64, centre func(predictionPoint) float64) (worst float64, used int, deciles []string) {
	rng := rand.New(rand.NewSource(7))
	type bucket struct{ pred, hit, n float64 }
	var buckets [10]bucket
	for _, p := range points {
		remainActual := p.actual.Sub(p.predictedAt).Seconds()
		c := centre(p)
		for k := 0; k < 10; k++ {
			d := c * (0.6 + 0.8*rng.Float64())
			pm := pOf(p, d)
			b := int(math.Min(9, pm*10))
			buckets[b].pred += pm
			buckets[b].n++
			if remainActual <= d {
				buckets[b].hit++
			}
		}
	}
	for i, b := range buckets {
		if b.n == 0 {
			continue
		}
		if b.n < minPerDecile {
			deciles = append(deciles, fmt.Sprintf("[%d] n=%.0f (too few)", i, b.n))
			continue
		}
		used++
		worst = math.Max(worst, math.Abs(b.pred/b.n-b.hit/b.n))
		deciles = append(deciles, fmt.Sprintf("%.2f→%.2f n=%.0f", b.pred/b.n, b.hit/b.n, b.n))
	}
	return worst, used, deciles
}

// bootstrapSD is the standard deviation of stat over n resamplings of
// the jobs with replacement, each job with all its predictions (those of
// one job are not independent): how far a figure moves with the draw of
// jobs, to tell a variant's change from noise. For a worst decile or a
// worst class the resamples sit above the figure itself (a maximum of
// noisy parts is biased up), so only their spread is reported.
func bootstrapSD(points []predictionPoint, stat func([]predictionPoint) float64, n int) float64 {
	byJob := map[string][]predictionPoint{}
	for _, p := range points {
		byJob[p.job] = append(byJob[p.job], p)
	}
	jobs := slices.Sorted(maps.Keys(byJob))
	if len(jobs) == 0 || n < 2 {
		return math.NaN()
	}
	rng := rand.New(rand.NewSource(11))
	x := make([]float64, n)
	for k := range x {
		var sample []predictionPoint
		for range jobs {
			sample = append(sample, byJob[jobs[rng.Intn(len(jobs))]]...)
		}
		x[k] = stat(sample)
	}
	m := mean(x)
	ss := 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / float64(n-1))
}

// worstClassMedian is the largest per-class median |error| of points.
func worstClassMedian(points []predictionPoint) float64 {
	by := map[string][]float64{}
	for _, p := range points {
		by[p.class] = append(by[p.class], p.errRel)
	}
	worst := 0.0
	for _, e := range by {
		worst = math.Max(worst, median(e))
	}
	return worst
}

// perClassOf is "class x.x%" of stat over each class, in name order.
func perClassOf(by map[string][]float64, stat func([]float64) float64, sign bool) string {
	var out []string
	for _, c := range slices.Sorted(maps.Keys(by)) {
		f := "%s %.1f%%"
		if sign {
			f = "%s %+.1f%%"
		}
		out = append(out, fmt.Sprintf(f, c, 100*stat(by[c])))
	}
	return strings.Join(out, " ")
}

// perClass is "class ±x.x%" of each class's mean, in name order.
func perClass(by map[string][]float64) string {
	var out []string
	for _, c := range slices.Sorted(maps.Keys(by)) {
		out = append(out, fmt.Sprintf("%s %+.1f%%", c, 100*mean(by[c])))
	}
	return strings.Join(out, " ")
}

// cdfAt interpolates the CDF points (seconds, P) at t.
func cdfAt(cdf [][2]float64, t float64) float64 {
	if len(cdf) == 0 {
		return 0
	}
	if t < cdf[0][0] {
		return cdf[0][1] * math.Max(0, t) / math.Max(cdf[0][0], 1e-9)
	}
	for i := 1; i < len(cdf); i++ {
		if t < cdf[i][0] {
			a, b := cdf[i-1], cdf[i]
			return a[1] + (b[1]-a[1])*(t-a[0])/math.Max(b[0]-a[0], 1e-9)
		}
	}
	return 1
}

func mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	y := append([]float64(nil), x...)
	sort.Float64s(y)
	return y[len(y)/2]
}

// greedyVsLP solves one random (P2) instance of 1,000 classes with the
// greedy and with gonum's simplex on the same LP, and compares objective
// and time.
func greedyVsLP() ([]Row, error) {
	const n = 1000
	rng := rand.New(rand.NewSource(3))
	cl := make([]deadline.Class, n)
	var cap float64
	for i := range cl {
		lo := math.Floor(2 * rng.Float64())
		cl[i] = deadline.Class{Name: fmt.Sprint(i), Gamma: 1 + 9*rng.Float64(), P: 1 + 99*rng.Float64(), HLow: lo, HUp: lo + 1 + math.Floor(19*rng.Float64())}
		cap += cl[i].Gamma * cl[i].HUp
	}
	rbar, rho, delta := cap/2, 4.0, 12.0
	var sol deadline.Solution
	reps := 1000
	start := time.Now()
	for k := 0; k < reps; k++ {
		sol = deadline.SolveP2(cl, rbar, rho, delta)
	}
	greedy := time.Since(start) / time.Duration(reps)

	// Standard form: x = (y_1..y_n, s_1..s_n, r, t, d, u) ≥ 0 with
	// h_i = HLow_i + y_i; y_i + s_i = HUp_i − HLow_i; r + t = r̄;
	// Σ γ_i y_i − r − d + u = −Σ γ_i HLow_i. min δd + ρr − Σ p_i y_i (− const).
	vars := 2*n + 4
	A := mat.NewDense(n+2, vars, nil)
	b := make([]float64, n+2)
	c := make([]float64, vars)
	constant := 0.0
	for i, k := range cl {
		A.Set(i, i, 1)
		A.Set(i, n+i, 1)
		b[i] = k.HUp - k.HLow
		A.Set(n+1, i, k.Gamma)
		b[n+1] -= k.Gamma * k.HLow
		c[i] = -k.P
		constant -= k.P * k.HLow
	}
	r, t, d, u := 2*n, 2*n+1, 2*n+2, 2*n+3
	A.Set(n, r, 1)
	A.Set(n, t, 1)
	b[n] = rbar
	A.Set(n+1, r, -1)
	A.Set(n+1, d, -1)
	A.Set(n+1, u, 1)
	c[r], c[d] = rho, delta
	if b[n+1] < 0 { // simplex wants b ≥ 0
		for j := 0; j < vars; j++ {
			A.Set(n+1, j, -A.At(n+1, j))
		}
		b[n+1] = -b[n+1]
	}
	start = time.Now()
	opt, _, err := lp.Simplex(c, A, b, 1e-9, nil)
	lpTime := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("simplex: %w", err)
	}
	opt += constant
	gap := math.Abs(sol.Objective-opt) / math.Max(1, math.Abs(opt))
	return []Row{{Area: "deadline", Name: "(e) (P2) greedy at 1,000 classes vs LP (gonum simplex) on the same instance",
		Figure:   fmt.Sprintf("%s, objective %.2f", greedy, sol.Objective),
		Baseline: fmt.Sprintf("%s, objective %.2f", lpTime.Round(time.Millisecond), opt),
		Ratio:    fmt.Sprintf("%.0f× faster, objective gap %.1e", lpTime.Seconds()/greedy.Seconds(), gap),
		Goal:     "same objective, ≤1 ms (Malekimajd: CPLEX 0.08 s)"}}, nil
}

// steamPrediction is the candidate of variant 2: the map phase's rest by
// STEAMEngine's linear extrapolation of map progress since the job started
// (deadline.MapsRemaining), then the class model's reduce phase by
// Monte-Carlo on the containers held now.
func steamPrediction(snap cluster.Snapshot, a cluster.App, models map[string]deadline.PhaseModel, seed uint64) (predictionPoint, bool) {
	class := calibrate.ClassKey("tag").ClassOf(a)
	m, ok := models[class]
	if !ok || a.Job == nil || a.Job.MapsTotal == 0 {
		return predictionPoint{}, false
	}
	done := float64(a.Job.MapsCompleted)
	for _, p := range a.Job.RunningMaps {
		done += p
	}
	rem, ok := deadline.MapsRemaining(snap.Time.Sub(a.Job.StartTime).Seconds(), done/float64(a.Job.MapsTotal))
	if !ok {
		return predictionPoint{}, false
	}
	workers := max(a.RunningContainers-1-a.Job.ReducesRunning, 1)
	d := deadline.Simulate(m, deadline.Work{Reduces: a.Job.ReducesTotal - a.Job.ReducesCompleted, ReduceHeld: a.Job.ReducesRunning}, workers, nil, 400, seed)
	var cdf [][2]float64
	for _, q := range []float64{0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 1} {
		cdf = append(cdf, [2]float64{rem + d.Quantile(q), q})
	}
	return predictionPoint{class: class, variant: 2, cdf: cdf, predictedAt: snap.Time, submit: a.StartedTime,
		actual: snap.Time.Add(time.Duration((rem + d.Quantile(0.5)) * float64(time.Second)))}, true
}

// sharePrediction is the candidate of variant 3: the report's Monte-Carlo
// with the map workers of deadline.ShareWorkers instead of those held now.
func sharePrediction(snap cluster.Snapshot, a cluster.App, models map[string]deadline.PhaseModel, seed uint64) (predictionPoint, bool) {
	class := calibrate.ClassKey("tag").ClassOf(a)
	m, ok := models[class]
	if !ok || a.Job == nil || a.Job.MapsTotal == 0 {
		return predictionPoint{}, false
	}
	q, ok := snap.Queue(a.Queue)
	if !ok {
		return predictionPoint{}, false
	}
	othersPending := false
	for _, o := range snap.Queues {
		if o.Leaf && o.Path != q.Path && o.ByPartition[""].Pending.MemoryMB > 0 {
			othersPending = true
		}
	}
	w := deadline.Work{Maps: max(a.Job.MapsTotal-a.Job.MapsCompleted-len(a.Job.RunningMaps), 0), Reduces: a.Job.ReducesTotal - a.Job.ReducesCompleted, ReduceHeld: a.Job.ReducesRunning}
	for _, p := range a.Job.RunningMaps {
		w.MapResidual = append(w.MapResidual, math.Max(0, 1-p))
	}
	workers := max(a.RunningContainers-1-a.Job.ReducesRunning, 1)
	pc := q.ByPartition[""]
	workers = deadline.ShareWorkers(workers, pc.AbsoluteCapacity, pc.AbsoluteUsed, othersPending)
	d := deadline.Simulate(m, w, workers, nil, 400, seed)
	var cdf [][2]float64
	for _, qq := range []float64{0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 1} {
		cdf = append(cdf, [2]float64{d.Quantile(qq), qq})
	}
	return predictionPoint{class: class, variant: 3, cdf: cdf, predictedAt: snap.Time, submit: a.StartedTime,
		actual: snap.Time.Add(time.Duration(d.Quantile(0.5) * float64(time.Second)))}, true
}

// deadlineGroup is whether -rows asks for a group of the deadline rows:
// bounds, hetero-100, fb-2009 or greedy (all without -rows).
func deadlineGroup(o Options, group string) bool {
	return o.Rows == "" || strings.Contains(group, o.Rows)
}
