package learn

import (
	"context"
	"fmt"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// SparkHistoryLag keeps the Spark backfill's cursor this far behind the
// cycle's time: the History Server lists an app only once it has
// replayed its event log (spark.history.fs.update.interval, 10 s by
// default, longer for a large log), so an app that ended just before
// another may be listed after it. Apps in the window are listed again
// each cycle but read once (the observer remembers them; after a
// restart their samples, keyed by task, are stored once).
const SparkHistoryLag = 10 * time.Minute

// backfill reads finished Spark apps from the History Server within
// budget requests: first the listing of the apps completed since the
// durable cursor (one request; after a restart, the apps that finished
// while the sidecar was down, which no RM running list showed), then,
// through the observer's Backfill, those and the apps it saw run whose
// last stages it has not read. The cursor moves to the earliest end of a
// listed app not yet read whole (else the latest listed end), never
// later than SparkHistoryLag before the cycle, never back; a read-only
// learner moves nothing.
func (s *SparkLearner) backfill(ctx context.Context, snap cluster.Snapshot, nodes sparkobs.Nodes, budget int) ([]calibrate.Sample, int, []error) {
	h := s.HistoryLearner
	if !s.Spark.CanList() { // no History Server (spark.history_server unset): nothing to list
		if budget <= 0 {
			return nil, 0, nil
		}
		return s.Spark.Backfill(ctx, nil, nodes, s.ClassKey.ClassOf, budget)
	}
	cursor, err := h.Store.SparkCursor()
	if err != nil {
		return nil, 0, []error{fmt.Errorf("read the Spark backfill cursor: %w", err)}
	}
	listed, lerr := s.Spark.Completed(ctx, cursor)
	n := 1
	var errs []error
	if lerr != nil {
		errs = append(errs, fmt.Errorf("list the History Server's completed apps since %s: %w", cursor.Format(time.RFC3339), lerr))
	}
	// The RM's record of an app, when the snapshot has it, carries what
	// the class key may read (tags, queue, user); the History Server's
	// listing only the name and user.
	rm := map[string]cluster.App{}
	for _, a := range snap.Apps {
		rm[a.ID] = a
	}
	var finished []cluster.App
	for _, c := range listed {
		if c.Known {
			continue
		}
		a := c.App
		if r, ok := rm[a.ID]; ok {
			r.State, r.FinishedTime = cluster.AppFinished, a.FinishedTime
			a = r
		}
		finished = append(finished, a)
	}
	var samples []calibrate.Sample
	pending := s.Spark.Pending
	if left := budget - n; left > 0 { // Backfill reads 0 as its default budget
		more, used, berrs := s.Spark.Backfill(ctx, finished, nodes, s.ClassKey.ClassOf, left)
		samples, n = more, n+used
		errs = append(errs, berrs...)
	} else {
		unread := map[string]bool{} // listed, not handed to the observer this cycle
		for _, a := range finished {
			unread[a.ID] = true
		}
		pending = func(id string) bool { return unread[id] || s.Spark.Pending(id) }
	}
	if lerr == nil && !h.ReadOnly {
		if next := nextSparkCursor(cursor, listed, pending, snap.Time); next.After(cursor) {
			if err := h.Store.SetSparkCursor(next); err != nil {
				errs = append(errs, fmt.Errorf("save the Spark backfill cursor: %w", err))
			}
		}
	}
	return samples, n, errs
}

// nextSparkCursor is where the cursor may move after a cycle: the
// earliest end of a listed app still pending (not read whole), else the
// latest end listed; at most SparkHistoryLag before now; never back.
func nextSparkCursor(cursor time.Time, listed []sparkobs.CompletedApp, pending func(appID string) bool, now time.Time) time.Time {
	next := cursor
	var earliestPending time.Time
	for _, c := range listed {
		end := c.App.FinishedTime
		if pending(c.App.ID) {
			if earliestPending.IsZero() || end.Before(earliestPending) {
				earliestPending = end
			}
			continue
		}
		if end.After(next) {
			next = end
		}
	}
	if !earliestPending.IsZero() && earliestPending.Before(next) {
		next = earliestPending
	}
	if limit := now.Add(-SparkHistoryLag); next.After(limit) {
		next = limit
	}
	if next.Before(cursor) {
		return cursor
	}
	return next
}

// executorCores is one executor's task slots (spark.executor.cores over
// spark.task.cpus) as the app's active executors show them: their cores
// over their count; 0 when it holds none (the deadline report then keeps
// "needed" at what the app holds). spark.dynamicAllocation.maxExecutors
// is not read (the environment endpoint is not observed), so the search
// is bounded by the queue alone.
func executorCores(slots, execs map[string]int) int {
	c, n := 0, 0
	for _, k := range slots {
		c += k
	}
	for _, k := range execs {
		n += k
	}
	if n == 0 {
		return 0
	}
	return c / n
}
