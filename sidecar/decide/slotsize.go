package decide

import (
	"sort"
	"strings"
	"sync"

	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// DefaultSlot is the planning slot when nothing says what the cluster
// runs: no job running or seen, no scheduler minimum, no override.
var DefaultSlot = cluster.Resource{MemoryMB: 2048, VCores: 1}

// Where a planning slot came from (SlotChoice.Source).
const (
	SlotFromConfig   = "config"            // the admin's slot: override
	SlotFromRunning  = "running-jobs"      // the task containers running jobs hold or ask for
	SlotFromSeen     = "seen-jobs"         // the last sizes seen per class, no job running now
	SlotFromMinimum  = "scheduler-minimum" // yarn-site minimum-allocation, else /scheduler's
	SlotFromFallback = "default"           // DefaultSlot
)

// SlotChoice is the planning slot of one snapshot and why.
type SlotChoice struct {
	Slot   cluster.Resource `json:"slot"`
	Source string           `json:"source"`
	// ByClass is each job class's task container as last seen.
	ByClass map[string]cluster.Resource `json:"byClass,omitempty"`
}

// SlotSizer decides the planning slot from what the cluster allocates, so
// that slots per node type (node resources ÷ slot), the plan's demand in
// slots, the deadline report's container counts and the label layout count
// the containers the cluster really runs. On a real 3.3.6 cluster whose
// maps were 512 MB a fixed 2048 MB slot said a 4 GB node had 2 slots where
// 8 containers ran, and that a 2-minute goal needed "6 containers (the
// queue may hold 2)" for a job that met it.
//
// The slot is the task container of the running MapReduce jobs (their
// mapreduce.map.memory.mb / cpu.vcores from the job conf, their reduces'
// by mapreduce.reduce.*, else their allocations less the AM per
// container: progress.TaskSize), rounded up to
// the scheduler's minimum allocation as the RM rounds requests, and the
// median over the jobs' containers (running plus maps waiting) when jobs
// differ: the size most containers have. One slot serves the whole
// cluster; a node type's slots differ by its resources. With no job
// running, the classes' last sizes stand; before any, the minimum
// allocation; then DefaultSlot. An admin's Override wins over all.
//
// Measured (go run ./testenv/bench -only steering -seeds 1, before and
// after the harness used it; same machine): lee-gpu and hetero-100, whose
// maps are 2048 MB, give the same figures; lee-toy, whose maps are 4096 MB
// (a fixed slot counted each node twice over), A 36m13s against 36m33s
// (0.85× stock either way, 108% of the oracle's gain against 103%), B
// unchanged at 13m34s, ΣPS while both run 54.8% of its bound against 48.5%.
type SlotSizer struct {
	// Override is the admin's slot (config slot:); zero = derive it.
	Override cluster.Resource
	// Minimum is the scheduler's minimum allocation (yarn-site's
	// yarn.scheduler.minimum-allocation-mb/-vcores); zero = what the
	// snapshot's queues report (/ws/v1/cluster/scheduler), if any.
	Minimum cluster.Resource
	ClassOf func(cluster.App) string

	mu      sync.Mutex
	byClass map[string]cluster.Resource
}

// Choose returns the planning slot for a snapshot and remembers each
// running class's task size for snapshots with none running.
func (z *SlotSizer) Choose(snap cluster.Snapshot) SlotChoice {
	if !z.Override.IsZero() {
		return SlotChoice{Slot: withVCores(z.Override), Source: SlotFromConfig}
	}
	type sized struct {
		size   cluster.Resource
		weight int64
	}
	minimum := z.Minimum
	if minimum.IsZero() {
		minimum = snap.MinimumAllocation()
	}
	var sizes []sized
	seen := map[string]cluster.Resource{}
	for _, a := range snap.RunningApps() {
		sz := progress.TaskSize(a)
		if sz.IsZero() {
			continue
		}
		sz = roundUp(sz, minimum)
		w := int64(max(a.RunningContainers-1, 0))
		if j := a.Job; j != nil {
			w += int64(max(j.MapsTotal-j.MapsCompleted-len(j.RunningMaps), 0))
			if rs := j.ReduceContainerSize; !rs.IsZero() && !j.ContainerSize.IsZero() {
				// Its reduces, running and to come, in their own size.
				rw := int64(max(j.ReducesTotal-j.ReducesCompleted, 0))
				w -= int64(j.ReducesRunning)
				if rw > 0 {
					sizes = append(sizes, sized{roundUp(rs, minimum), rw})
				}
			}
		}
		sizes = append(sizes, sized{sz, max(w, 1)})
		if z.ClassOf != nil {
			seen[z.ClassOf(a)] = sz
		}
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.byClass == nil {
		z.byClass = map[string]cluster.Resource{}
	}
	for c, sz := range seen {
		z.byClass[c] = sz
	}
	byClass := make(map[string]cluster.Resource, len(z.byClass))
	for c, sz := range z.byClass {
		byClass[c] = sz
	}
	switch {
	case len(sizes) > 0:
		sort.Slice(sizes, func(i, k int) bool { return less(sizes[i].size, sizes[k].size) })
		var total, acc int64
		for _, s := range sizes {
			total += s.weight
		}
		for _, s := range sizes {
			if acc += s.weight; 2*acc >= total {
				return SlotChoice{Slot: s.size, Source: SlotFromRunning, ByClass: byClass}
			}
		}
	case len(byClass) > 0:
		all := make([]cluster.Resource, 0, len(byClass))
		for _, sz := range byClass {
			all = append(all, sz)
		}
		sort.Slice(all, func(i, k int) bool { return less(all[i], all[k]) })
		return SlotChoice{Slot: all[(len(all)-1)/2], Source: SlotFromSeen, ByClass: byClass}
	case !minimum.IsZero():
		return SlotChoice{Slot: withVCores(minimum), Source: SlotFromMinimum}
	}
	return SlotChoice{Slot: DefaultSlot, Source: SlotFromFallback, ByClass: byClass}
}

// SlotFor is the slot a decision uses: the sizer's when set, else fixed,
// else DefaultSlot.
func SlotFor(z *SlotSizer, fixed cluster.Resource, snap cluster.Snapshot) cluster.Resource {
	if z != nil {
		return z.Choose(snap).Slot
	}
	if fixed.IsZero() {
		return DefaultSlot
	}
	return withVCores(fixed)
}

// roundUp rounds a request up to a multiple of the minimum allocation, as
// the Capacity Scheduler normalises requests (memory and vcores each).
func roundUp(r, minimum cluster.Resource) cluster.Resource {
	up := func(v, m int64) int64 {
		if m <= 0 || v <= 0 {
			return max(v, m)
		}
		return (v + m - 1) / m * m
	}
	return cluster.Resource{MemoryMB: up(r.MemoryMB, minimum.MemoryMB), VCores: up(r.VCores, minimum.VCores), GPUs: r.GPUs}
}

func withVCores(r cluster.Resource) cluster.Resource {
	if r.VCores <= 0 {
		r.VCores = 1
	}
	return r
}

func less(a, b cluster.Resource) bool {
	if a.MemoryMB != b.MemoryMB {
		return a.MemoryMB < b.MemoryMB
	}
	return a.VCores < b.VCores
}

// ByCalculator is the slot as the Capacity Scheduler counts it: with the
// DefaultResourceCalculator named in the live configuration, containers
// are sized by memory alone (a 4096 MB, 4-vcore node runs eight 512 MB,
// 1-vcore maps, recorded on 3.3.6), so the slot's vcores do not bound how
// many fit. Unset is taken as counting vcores too, as before: the safe
// side (fewer slots), and what the mini cluster does without the name.
func ByCalculator(slot cluster.Resource, live schedconf.Conf) cluster.Resource {
	if strings.HasSuffix(strings.TrimSpace(live["yarn.scheduler.capacity.resource-calculator"]), ".DefaultResourceCalculator") {
		slot.VCores = 0
	}
	return slot
}
