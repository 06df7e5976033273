package sidecar

import (
	"math"
	"strings"
	"sync"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// BusyQueueFloor is a safety step (issue 18): a queue with work waiting
// keeps at least the default-partition capacity its admin gave it. Under
// load the Capacity Scheduler hands freed containers to the least-utilised
// queue first and sizes each queue's AM limit from its capacity, so a
// queue whose capacity was lent away while it still had pending work waits
// longer for AMs and maps: on fb-2009-saturated (seed 1) the sidecar made
// fb-tiny 13% slower (AM wait 0.5 s → 1.9 s, run 16.5 s → 17.4 s) to make
// fb-large faster. Capacity is still lent from queues with nothing
// pending, and GPU-partition routing is untouched: the speed gains come
// from where work runs, not from taking guarantees from busy queues.
// Opt-in (safety.keep_busy_queues): on a two-queue cluster busy everywhere
// it pins the default partition, the lever lee-gpu-like clusters need.
type BusyQueueFloor struct {
	mu       sync.Mutex
	baseline map[string]float64 // queue → its capacity (% of parent) when first seen
}

// Rule returns the floor for this snapshot: a queue's first-seen capacity
// in the default partition while it has pending resources, else 0. The
// first snapshot the sidecar sees is the admin's configuration (it starts
// before changing anything).
func (b *BusyQueueFloor) Rule(snap cluster.Snapshot) func(queue, partition string) float64 {
	b.mu.Lock()
	if b.baseline == nil {
		b.baseline = map[string]float64{}
	}
	busy := map[string]bool{}
	for _, q := range snap.LeafQueues() {
		if _, seen := b.baseline[q.Path]; !seen {
			b.baseline[q.Path] = q.ByPartition[cluster.DefaultPartition].Capacity
		}
		for _, c := range q.ByPartition {
			if c.Pending.MemoryMB > 0 {
				busy[q.Path] = true
			}
		}
	}
	floors := map[string]float64{}
	for q := range busy {
		floors[q] = b.baseline[q]
	}
	b.mu.Unlock()
	return func(queue, partition string) float64 {
		if partition != cluster.DefaultPartition {
			return 0
		}
		return floors[queue]
	}
}

// MaxFloor combines floor rules: the highest floor wins.
func MaxFloor(rules ...func(queue, partition string) float64) func(queue, partition string) float64 {
	return func(queue, partition string) float64 {
		f := 0.0
		for _, r := range rules {
			if r != nil {
				f = max(f, r(queue, partition))
			}
		}
		return f
	}
}

// FloorRule returns the safety floor: one slot's worth of each partition,
// as a percentage (USER-ASKS #8), for queues homed or holding capacity there.
func FloorRule(snap cluster.Snapshot, slot cluster.Resource, containers int) func(queue, partition string) float64 {
	totals := map[string]int64{}
	for _, p := range snap.Partitions {
		totals[p.Name] = p.Total.Fits(slot)
	}
	queueOf := snap.QueueIndex() // asked per queue and partition
	return func(queue, partition string) float64 {
		if totals[partition] == 0 || containers == 0 {
			return 0
		}
		q, ok := queueOf(queue)
		if !ok {
			return 0
		}
		if c := q.ByPartition[partition]; c.Capacity <= 0 && !strings.EqualFold(q.DefaultLabelExpression, partition) {
			return 0 // the queue does not use this partition
		}
		return math.Min(100, 100*float64(containers)/float64(totals[partition]))
	}
}
