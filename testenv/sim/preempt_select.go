package sim

import (
	"sort"
	"time"
)

// The policy's candidate selection and its marks
// (ProportionalCapacityPreemptionPolicy's FifoCandidatesSelector and
// preemptionCandidates map): which containers a round selects, when a
// selected container is killed, and when a mark is forgotten.

// forgetStaleMarks drops the marks made more than 2 ×
// max_wait_before_kill before now (cleanupStaledPreemptionCandidates).
func (c *Cluster) forgetStaleMarks(now time.Time) {
	stale := 2 * c.preempt.conf.MaxWait
	for at, first := range c.preempt.marked {
		if now.Sub(first) > stale {
			delete(c.preempt.marked, at)
		}
	}
	for a, first := range c.preempt.amMarked {
		if now.Sub(first) > stale {
			delete(c.preempt.amMarked, a)
		}
	}
}

// selectFrom picks a queue's containers in partition p until resToObtain
// is covered: apps newest first (the reverse of the leaf's order), in each
// app its task containers by request priority (maps, priority 20, before
// reduces, 10) then newest first; AM containers last, and only while the
// queue's AMs use more than its AM limit (FifoCandidatesSelector). A
// container is taken whole, so a small positive need takes one container,
// but only if it fits in the round's remaining allowance.
func (c *Cluster) selectFrom(q *pqueue, p string, selected map[*attempt]bool, selectedAM map[*app]bool, allowance *float64) {
	var apps []*app
	for _, a := range c.active {
		if a.queue == q.path && a.finish.IsZero() {
			apps = append(apps, a)
		}
	}
	sort.SliceStable(apps, func(i, j int) bool {
		if apps[i].priority != apps[j].priority {
			return apps[i].priority < apps[j].priority
		}
		return apps[i].seq > apps[j].seq
	})
	need := q.resToObtain
	var ams []*app
	for _, a := range apps {
		if need <= 0 {
			break
		}
		if a.amNode != nil && a.amNode.label == p {
			ams = append(ams, a)
		}
		for _, at := range runningNewestFirst(a, p) {
			if need <= 0 {
				break
			}
			if size := float64(at.size.MemoryMB); size <= *allowance {
				selected[at] = true
				need -= size
				*allowance -= size
			}
		}
	}
	amUsed := float64(c.amUsage[q.path].MemoryMB)
	for _, a := range ams {
		if need <= 0 || amUsed <= q.maxAM {
			break
		}
		if size := float64(amResource.MemoryMB); size <= *allowance {
			selectedAM[a] = true
			need -= size
			amUsed -= size
			*allowance -= size
		}
	}
}

// runningNewestFirst lists an app's running task containers on partition p:
// maps before reduces, each newest first (container ids grow with time).
func runningNewestFirst(a *app, p string) []*attempt {
	var out []*attempt
	for _, ts := range [][]*task{a.maps, a.reduces} {
		var group []*attempt
		for _, t := range ts {
			for _, at := range t.attempts {
				if at.state == "RUNNING" && at.node.label == p {
					group = append(group, at)
				}
			}
		}
		sort.SliceStable(group, func(i, j int) bool {
			if !group[i].start.Equal(group[j].start) {
				return group[i].start.After(group[j].start)
			}
			return attemptLess(group[j], group[i])
		})
		out = append(out, group...)
	}
	return out
}

// overdue marks each newly selected container (attempt or AM) at now and
// returns those selected for at least maxWait (max_wait_before_kill), in
// map order: the caller sorts them.
func overdue[K comparable](marked map[K]time.Time, selected map[K]bool, now time.Time, maxWait time.Duration) []K {
	var out []K
	for k := range selected {
		first, ok := marked[k]
		if !ok {
			marked[k] = now
			continue
		}
		if now.Sub(first) >= maxWait {
			out = append(out, k)
		}
	}
	return out
}
