package yarn

import (
	"sync"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// placements caches each running app's containers per node between
// snapshots. An entry is reused while the app's running-container count
// and allocation are what they were when it was read, and for at most
// PlacementMaxAge: a container that ended on one node while another began
// elsewhere in the same interval goes unseen until then.
type placements struct {
	mu sync.Mutex
	m  map[string]placement
}

type placement struct {
	containers int
	allocated  cluster.Resource
	read       time.Time
	byNode     map[string]int
}

const defaultPlacementMaxAge = 5 * time.Minute

func (p *placements) get(a *cluster.App, now time.Time, maxAge time.Duration) (map[string]int, bool) {
	if maxAge == 0 {
		maxAge = defaultPlacementMaxAge
	}
	if maxAge < 0 {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.m[a.ID]
	if !ok || e.containers != a.RunningContainers || e.allocated != a.Allocated || now.Sub(e.read) > maxAge || now.Before(e.read) {
		return nil, false
	}
	return e.byNode, true
}

func (p *placements) put(a *cluster.App, now time.Time, byNode map[string]int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]placement{}
	}
	p.m[a.ID] = placement{containers: a.RunningContainers, allocated: a.Allocated, read: now, byNode: byNode}
}

// keep forgets apps no longer running.
func (p *placements) keep(apps []cluster.App) {
	p.mu.Lock()
	defer p.mu.Unlock()
	live := make(map[string]bool, len(apps))
	for _, a := range apps {
		live[a.ID] = true
	}
	for id := range p.m {
		if !live[id] {
			delete(p.m, id)
		}
	}
}

// keepListed forgets apps no longer running and apps no longer placed by
// listing (their partition's placement is exact without one).
func (p *placements) keepListed(apps []cluster.App) {
	live := make([]cluster.App, 0, len(apps))
	for _, a := range apps {
		if a.Placement == cluster.PlacementListed || a.Placement == cluster.PlacementEstimated {
			live = append(live, a)
		}
	}
	p.keep(live)
}
