package main

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// finishPredictions: each Spark app's finish predicted once 20% of its
// tasks are done (sparkobs.Predict, task times from the history learned
// so far: the earlier seeds' and this run's), scored against when it
// finished: |predicted − actual| / the app's completion time.
type finishPredictions struct {
	pending map[string]time.Time // app → predicted finish
	classOf map[string]string
	byClass map[string][]float64
	none    map[string]int // apps with no prediction (a task time unknown), by class
	unknown map[string]bool
	times   sparkobs.TaskTimes
	cycles  int
}

func (p *finishPredictions) hook(h *sparkHarness, store *calibrate.Store) func(sparkobs.Cycle, []cluster.App) {
	p.pending, p.classOf, p.unknown, p.cycles = map[string]time.Time{}, map[string]string{}, map[string]bool{}, 0
	if p.none == nil {
		p.none = map[string]int{}
	}
	classOf := calibrate.ClassKey("tag").ClassOf
	return func(cy sparkobs.Cycle, apps []cluster.App) {
		if p.cycles%20 == 0 { // the history learned so far
			if all, err := store.All(); err == nil {
				p.times = sparkobs.TaskTimesFrom(all)
			}
		}
		p.cycles++
		for _, a := range apps {
			stages, ok := cy.Stages[a.ID]
			if _, done := p.pending[a.ID]; !ok || done {
				continue
			}
			if _, seen := p.classOf[a.ID]; seen {
				continue // already judged unpredictable
			}
			total, done := 0, 0
			for _, s := range stages {
				total += s.NumTasks
				done += s.NumCompletedIndices
			}
			if total == 0 || float64(done) < 0.2*float64(total) {
				continue
			}
			class := classOf(a)
			p.classOf[a.ID] = class
			o := sparkobs.Predict(class, stages, cy.Slots[a.ID], p.times)
			if !o.Known {
				p.unknown[a.ID] = true
				continue
			}
			p.pending[a.ID] = h.c.Now().Add(o.Remaining)
		}
	}
}

// score compares a finished run's predictions with its apps' finishes.
func (p *finishPredictions) score(h *sparkHarness) {
	for id := range p.unknown {
		p.none[p.classOf[id]]++
	}
	for _, r := range h.c.Results() {
		pred, ok := p.pending[r.AppID]
		if !ok || r.Finish.IsZero() {
			continue
		}
		d := r.Finish.Sub(r.Submit).Seconds()
		p.byClass[p.classOf[r.AppID]] = append(p.byClass[p.classOf[r.AppID]], math.Abs(pred.Sub(r.Finish).Seconds())/d)
	}
}

func (p *finishPredictions) rows() []Row {
	var classes []string
	for c := range p.byClass {
		classes = append(classes, c)
	}
	for c := range p.none {
		if _, ok := p.byClass[c]; !ok {
			classes = append(classes, c)
		}
	}
	sort.Strings(classes)
	var parts []string
	worst := 0.0
	for _, c := range classes {
		v := append([]float64(nil), p.byClass[c]...)
		sort.Float64s(v)
		med := math.NaN()
		if len(v) > 0 {
			med = calibrate.Median(v)
			worst = math.Max(worst, med)
		}
		parts = append(parts, fmt.Sprintf("%s %.2f%% (%d apps, %d unpredicted)", c, 100*med, len(v), p.none[c]))
	}
	return []Row{{Area: "spark", Name: "spark-mixed, seeds after the first (a day of history each): Spark apps' finish predicted once 20% of their tasks were done (median |error| / completion time, per class; unpredicted: a stage's task time not yet learned or no executor read)",
		Figure: strings.Join(parts, "; "), Baseline: "actual finish", Ratio: fmt.Sprintf("worst class %.2f%%", 100*worst), Goal: "≤5% median every class"}}
}
