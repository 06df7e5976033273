package yarn

import (
	"cmp"
	"slices"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// The running-job budget (issue 19). Reading a running MapReduce job from
// its AM costs two requests (the job, and its map tasks for the running
// maps' progress): 10,000 per cycle on a cluster running 5,000 apps, which
// was 99% of a control cycle at scale-10k. Observe reads at most
// JobBudget/2 jobs per cycle, in priority order; the others keep their
// last read (JobReused, while it is younger than JobMaxAge) or go
// without a job (JobEstimated: the RM's progress only).

// DefaultJobBudget is ObserveOptions.JobBudget's default: 400 requests,
// 200 jobs read per cycle — as many as the per-node listings
// (defaultListingBudget: 200 requests, one per app). Jobs whose app the RM shows unchanged since
// their last read cost nothing; apps with a completion goal are read
// every cycle (up to 200 of them).
const DefaultJobBudget = 400

// requestsPerJobRead is what one running job's read costs (RunningJob:
// the job, then its map tasks); the first read of a job costs one more,
// its conf (jobConf, cached for the job's life).
const requestsPerJobRead = 2

// hasDeadlineTag is ObserveOptions.JobFirst's default: apps tagged with a
// completion goal (deadline=..., see deadline.GoalOf).
func hasDeadlineTag(a cluster.App) bool {
	_, ok := a.Tag("deadline")
	return ok
}

// jobRead is one app whose job could be read this cycle, with what ranks
// it.
type jobRead struct {
	i     int
	first bool      // has a completion goal
	read  time.Time // last read; zero: never
}

// jobReadBefore orders the reads: apps with a goal first, then apps never
// read, then the stalest read; ties to the app holding more containers
// (it weighs more in the cycle's decisions), then by id.
func jobReadBefore(apps []cluster.App) func(x, y jobRead) int {
	return func(x, y jobRead) int {
		if x.first != y.first {
			if x.first {
				return -1
			}
			return 1
		}
		if c := x.read.Compare(y.read); c != 0 {
			return c // zero (never read) sorts first
		}
		ax, ay := &apps[x.i], &apps[y.i]
		if c := cmp.Compare(ay.RunningContainers, ax.RunningContainers); c != 0 {
			return c
		}
		return cmp.Compare(ax.ID, ay.ID)
	}
}

// planJobReads decides which running MapReduce apps' jobs are read this
// cycle. Apps the RM shows unchanged since a young read reuse it for
// free. Of the rest, the first budget/2 in jobReadBefore order are read
// (negative budget: all); the others reuse a young read, changed or not,
// or go without a job. confCached says whether an app's job conf is
// already cached (nil: all are); a job whose conf is not costs one
// request more. It sets Job, JobView and JobReadAt on every app not read
// and returns the indexes to read, in priority order.
func (c *jobCache) planJobReads(apps []cluster.App, now time.Time, maxAge time.Duration, budget int, first func(cluster.App) bool, confCached func(cluster.App) bool) []int {
	if first == nil {
		first = hasDeadlineTag
	}
	var want []jobRead
	for i := range apps {
		a := &apps[i]
		if a.Type != "MAPREDUCE" {
			continue
		}
		e, ok := c.entry(a.ID)
		if ok && e.unchanged(a) && e.young(now, maxAge) {
			reuse(a, e)
			continue
		}
		r := jobRead{i: i, first: first(*a)}
		if ok {
			r.read = e.read
		}
		want = append(want, r)
	}
	slices.SortFunc(want, jobReadBefore(apps))
	n, spent, reduces := 0, 0, 0
	for ; n < len(want) && budget >= 0; n++ {
		rc := c.reduceCost(apps[want[n].i].ID)
		cost := requestsPerJobRead + rc
		if confCached != nil && !confCached(apps[want[n].i]) {
			cost++
		}
		if spent+cost > budget {
			break
		}
		spent += cost
		reduces += rc
	}
	if budget < 0 {
		n = len(want)
		c.setReduceAllowance(-1)
	} else {
		// The reduce reads planned, and what the budget has left for
		// those the last reads could not foresee.
		c.setReduceAllowance(reduces + budget - spent)
	}
	read := make([]int, 0, n)
	for _, r := range want[:n] {
		read = append(read, r.i)
	}
	for _, r := range want[n:] {
		c.keepOrEstimate(&apps[r.i], now, maxAge)
	}
	return read
}

// keepOrEstimate gives an app whose job is not read this cycle its last
// read while young, else no job.
func (c *jobCache) keepOrEstimate(a *cluster.App, now time.Time, maxAge time.Duration) {
	if e, ok := c.entry(a.ID); ok && e.young(now, maxAge) {
		reuse(a, e)
		return
	}
	a.Job, a.JobView, a.JobReadAt = nil, cluster.JobEstimated, time.Time{}
}

func reuse(a *cluster.App, e jobEntry) {
	a.Job, a.JobView, a.JobReadAt = e.copyJob(), cluster.JobReused, e.read
}
