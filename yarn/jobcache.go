package yarn

import (
	"sync"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// jobCache keeps each running MapReduce app's job (read from its AM, two
// requests, one of them the list of every map task) between snapshots. An
// entry is reused for free while what the RM says of the app — its
// progress (the AM's own, from its heartbeat), running containers and
// allocation — is what it was when the job was read: then no task started
// or finished since. A changed app's entry is reused too when the cycle's
// job budget went to other apps (see planJobReads). Neither past
// ObserveOptions.JobMaxAge.
type jobCache struct {
	mu sync.Mutex
	m  map[string]jobEntry
	// reduces are, per app, the node (host:port) of each running reduce
	// task read from its attempts (Client.runningReduceNodes).
	reduces map[string]map[string]string
	// reduceReads: jobs are read with their running reduces' nodes
	// (Config.RunningReduces), which planJobReads counts.
	reduceReads bool
	// allowance is what this observe's job budget leaves for reduce
	// reads (the tasks list and attempts), planned or not: a job read for
	// the first time, or whose reduces started since, costs more than its
	// last read said, and those reads stop when it runs out. Unset
	// (allowanceSet false): no bound, outside an observe.
	allowance    int
	allowanceSet bool
}

// setReduceAllowance bounds this observe's reduce reads (negative: none).
func (c *jobCache) setReduceAllowance(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.allowance, c.allowanceSet = n, n >= 0
}

// takeReduceRead spends one reduce read of the allowance; false when none
// is left.
func (c *jobCache) takeReduceRead() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.allowanceSet {
		return true
	}
	if c.allowance <= 0 {
		return false
	}
	c.allowance--
	return true
}

// reduceCost is what reading an app's running reduces adds to its job
// read (Config.RunningReduces), as far as its last read tells: the
// reduce tasks list when reduces were running, and one attempts read per
// running reduce whose node is not yet known. A job read for the first
// time, or whose reduces started since, may cost more than planned; the
// next cycle plans from what was read.
func (c *jobCache) reduceCost(appID string) int {
	if !c.reduceReads {
		return 0
	}
	e, ok := c.entry(appID)
	if !ok || e.job == nil || e.job.ReducesRunning == 0 {
		return 0
	}
	c.mu.Lock()
	known := len(c.reduces[appID])
	c.mu.Unlock()
	return 1 + max(0, e.job.ReducesRunning-known)
}

// reduceNode is the remembered node of an app's reduce task.
func (c *jobCache) reduceNode(appID, taskID string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	addr, ok := c.reduces[appID][taskID]
	return addr, ok
}

func (c *jobCache) putReduceNode(appID, taskID, addr string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reduces == nil {
		c.reduces = map[string]map[string]string{}
	}
	if c.reduces[appID] == nil {
		c.reduces[appID] = map[string]string{}
	}
	c.reduces[appID][taskID] = addr
}

type jobEntry struct {
	progress   float64
	containers int
	allocated  cluster.Resource
	read       time.Time
	job        *cluster.Job
}

// defaultJobMaxAge is ObserveOptions.JobMaxAge's default. At the default
// budget (200 jobs a cycle) and interval (30 s), 15 minutes is 30 cycles,
// 6,000 reads: every job of a cluster running 5,000 (scale-10k) is read
// again before its last read expires.
const defaultJobMaxAge = 15 * time.Minute

// jobMaxAge resolves ObserveOptions.JobMaxAge: 0 is the default; negative
// means no reuse (ok false).
func jobMaxAge(maxAge time.Duration) (time.Duration, bool) {
	if maxAge == 0 {
		maxAge = defaultJobMaxAge
	}
	return maxAge, maxAge > 0
}

// entry is the app's cached job, if any (whatever its age).
func (c *jobCache) entry(id string) (jobEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[id]
	return e, ok
}

// young reports whether the entry may be reused at now.
func (e jobEntry) young(now time.Time, maxAge time.Duration) bool {
	age, ok := jobMaxAge(maxAge)
	return ok && !now.Before(e.read) && now.Sub(e.read) <= age
}

// unchanged reports whether the RM shows the app as it was at the read.
func (e jobEntry) unchanged(a *cluster.App) bool {
	return e.progress == a.Progress && e.containers == a.RunningContainers && e.allocated == a.Allocated
}

// copyJob is the entry's job for one snapshot: consumers may not share the
// cached job's slices' backing arrays for writing.
func (e jobEntry) copyJob() *cluster.Job {
	j := *e.job
	j.RunningMaps = append([]float64(nil), e.job.RunningMaps...)
	j.RunningMapsElapsed = append([]float64(nil), e.job.RunningMapsElapsed...)
	j.CompletedMaps = append([]float64(nil), e.job.CompletedMaps...)
	j.RunningReduces = append([]float64(nil), e.job.RunningReduces...)
	j.RunningReducesElapsed = append([]float64(nil), e.job.RunningReducesElapsed...)
	j.RunningReduceNodes = append([]string(nil), e.job.RunningReduceNodes...)
	return &j
}

func (c *jobCache) put(a *cluster.App, now time.Time, j *cluster.Job) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]jobEntry{}
	}
	c.m[a.ID] = jobEntry{progress: a.Progress, containers: a.RunningContainers, allocated: a.Allocated, read: now, job: j}
}

// keep forgets apps no longer running.
func (c *jobCache) keep(apps []cluster.App) {
	c.mu.Lock()
	defer c.mu.Unlock()
	live := make(map[string]bool, len(apps))
	for _, a := range apps {
		live[a.ID] = true
	}
	for id := range c.m {
		if !live[id] {
			delete(c.m, id)
		}
	}
	for id := range c.reduces {
		if !live[id] {
			delete(c.reduces, id)
		}
	}
}
