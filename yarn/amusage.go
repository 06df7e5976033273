package yarn

import (
	"sort"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// AM use of apps read lean (issue 19). An app's AM container resources
// are in its resourceInfo only (amUsed per partition), which a lean apps
// read leaves out; fillUsage keeps them while the AM container is the one
// read. For the others, the scheduler answer says what each leaf queue's
// AM containers hold per partition (resourceUsagesByPartition.amUsed, as
// recorded on 3.3.6) and the node listing says which partition an app's
// AM node is in: the queue's AM use there, less the AM use of its apps
// known there, is shared evenly among its apps whose AM is there and not
// known, each marked AMEstimated. Where a queue's AMs are all one size
// (one application type and AM request) the share is that size.

// amKey is a leaf queue's partition.
type amKey struct{ queue, partition string }

// estimateAMUse sets AMUsed for the apps of a lean read (after fillUsage)
// whose AM use is not kept: kept says which apps' AM use was read, and
// nodePartition maps node ids to partitions (the snapshot's listing). It
// returns how many were estimated. Accepted are the apps still ACCEPTED:
// one whose AM container is already allocated (its AM launching, not yet
// registered) holds its share of the queue's AM use too, though nothing
// is set for it; counted with the running apps only, the queue's AM use
// went to them (on data-heavy two running apps were given 3.5 AMs each
// while five AMs were launching).
func estimateAMUse(apps, accepted []cluster.App, kept map[string]usageEntry, queues []cluster.Queue, nodePartition map[string]string) int {
	residual := map[amKey]cluster.Resource{}
	for _, q := range queues {
		if !q.Leaf {
			continue
		}
		for p, c := range q.ByPartition {
			residual[amKey{q.Path, p}] = c.AMUsed
		}
	}
	need := map[amKey][]int{}
	for i := range apps {
		a := &apps[i]
		if e, ok := kept[a.ID]; ok && e.amContainer == a.AMContainerID || !amResourceOf(*a).IsZero() {
			for p, u := range a.UsageByPartition {
				k := amKey{a.Queue, p}
				if r, ok := residual[k]; ok {
					residual[k] = r.Sub(u.AMUsed)
				}
			}
			continue
		}
		if k, ok := amPartition(*a, nodePartition); ok {
			need[k] = append(need[k], i)
		}
	}
	launching := map[amKey][]string{}
	for _, a := range accepted {
		if k, ok := amPartition(a, nodePartition); ok {
			launching[k] = append(launching[k], a.ID)
		}
	}
	n := 0
	for k, idx := range need {
		r := residual[k]
		if r.MemoryMB <= 0 {
			continue // the queue's AM use there is all known (or not said)
		}
		w := make(map[string]int64, len(idx)+len(launching[k]))
		for _, i := range idx {
			w[apps[i].ID] = 1
		}
		for _, id := range launching[k] {
			w[id] = 1
		}
		mem, vc := apportion64(r.MemoryMB, w), apportion64(max(r.VCores, 0), w)
		sort.Ints(idx)
		for _, i := range idx {
			a := &apps[i]
			am := cluster.Resource{MemoryMB: min(mem[a.ID], a.Allocated.MemoryMB), VCores: min(vc[a.ID], a.Allocated.VCores)}
			if am.MemoryMB <= 0 {
				continue
			}
			if a.UsageByPartition == nil {
				a.UsageByPartition = map[string]cluster.AppPartitionUsage{}
			}
			u := a.UsageByPartition[k.partition]
			u.AMUsed = am
			a.UsageByPartition[k.partition] = u
			a.AMEstimated = true
			n++
		}
	}
	return n
}

// amPartition is the queue and partition of an app's AM container: false
// when it has none running or its node is not in the listing.
func amPartition(a cluster.App, nodePartition map[string]string) (amKey, bool) {
	p, ok := nodePartition[a.AMNodeID]
	if a.AMNodeID == "" || !ok || a.RunningContainers == 0 {
		return amKey{}, false
	}
	return amKey{a.Queue, p}, true
}

// amResourceOf is the app's AM use summed over partitions.
func amResourceOf(a cluster.App) cluster.Resource {
	var r cluster.Resource
	for _, u := range a.UsageByPartition {
		r = r.Add(u.AMUsed)
	}
	return r
}
