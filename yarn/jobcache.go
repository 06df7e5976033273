package yarn

import (
	"sync"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// jobCache keeps each running MapReduce app's job (read from its AM, two
// requests, one of them the list of every map task) between snapshots. An
// entry is reused while what the RM says of the app — its progress (the
// AM's own, from its heartbeat), running containers and allocation — is
// what it was when the job was read: then no task started or finished
// since. It is still re-read after PlacementMaxAge.
type jobCache struct {
	mu sync.Mutex
	m  map[string]jobEntry
}

type jobEntry struct {
	progress   float64
	containers int
	allocated  cluster.Resource
	read       time.Time
	job        *cluster.Job
}

func (c *jobCache) get(a *cluster.App, now time.Time, maxAge time.Duration) (*cluster.Job, bool) {
	if maxAge == 0 {
		maxAge = defaultPlacementMaxAge
	}
	if maxAge < 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[a.ID]
	if !ok || e.progress != a.Progress || e.containers != a.RunningContainers || e.allocated != a.Allocated ||
		now.Sub(e.read) > maxAge || now.Before(e.read) {
		return nil, false
	}
	j := *e.job // a copy: consumers may not share the cached job's slices' backing arrays for writing
	j.RunningMaps = append([]float64(nil), e.job.RunningMaps...)
	j.CompletedMaps = append([]float64(nil), e.job.CompletedMaps...)
	return &j, true
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
}
