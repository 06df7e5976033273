package sparkobs

import (
	"context"
	"fmt"
	"sort"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/spark"
)

// Backfill reads, from the History Server, the finished Spark apps whose
// completed stages were not all turned into samples while they ran (the
// budget skipped them, their last stages completed after the last read,
// or the sidecar was not running), within budget requests (0:
// DefaultBudget; negative: no bound). finished adds apps the RM lists as
// finished that the observer never saw (a restart); an app is dropped
// once read whole. It returns the samples and the requests sent.
func (o *Observer) Backfill(ctx context.Context, finished []cluster.App, nodes Nodes, classOf func(cluster.App) string, budget int) ([]calibrate.Sample, int, []error) {
	if budget == 0 {
		budget = DefaultBudget
	}
	for _, a := range finished {
		if !IsSpark(a) || a.State != cluster.AppFinished || o.apps[a.ID] != nil || o.done[a.ID] {
			continue
		}
		o.apps[a.ID] = &appState{class: classOf(a), harvested: map[spark.StageKey]bool{}, needExecs: true, finished: true}
	}
	var ids []string
	for id, st := range o.apps {
		if st.finished {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	var out []calibrate.Sample
	var errs []error
	n := 0
	for _, id := range ids {
		if budget >= 0 && n >= budget {
			break
		}
		st := o.apps[id]
		// A cluster-mode app's resources need its attempt: one request.
		src, err := o.r.History(id, "")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n++
		app, err := o.r.Application(ctx, src)
		if err != nil {
			errs = append(errs, fmt.Errorf("spark app %s (history): %w", id, err))
			continue
		}
		if len(app.Attempts) > 0 && app.Attempts[0].AttemptID != "" {
			if src, err = o.r.History(id, app.Attempts[0].AttemptID); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		left := -1
		if budget >= 0 {
			left = budget - n
		}
		st.needExecs = true // executors removed since the last read
		st.stages = nil     // complete judges this read's stage list only
		used, samples, err := o.readApp(ctx, id, st, src, left, nodes)
		n += used
		out = append(out, samples...)
		if err != nil {
			errs = append(errs, fmt.Errorf("spark app %s (history): %w", id, err))
			continue
		}
		if o.complete(st) {
			delete(o.apps, id)
			o.done[id] = true
		}
	}
	return out, n, errs
}

// complete reports an app whose every completed stage was harvested.
func (o *Observer) complete(st *appState) bool {
	if len(st.stages) == 0 {
		return false
	}
	for _, s := range st.stages {
		if s.Status == "COMPLETE" && !st.harvested[spark.StageKey{StageID: s.StageID, AttemptID: s.AttemptID}] {
			return false
		}
	}
	return true
}
