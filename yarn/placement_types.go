package yarn

import (
	"sort"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Placement per node type (issue 19). A real RM says in the one apps
// answer how much each app uses of each partition
// (resourceInfo.resourceUsagesByPartition). Where a partition holds nodes
// of one type that is the app's placement by type, exactly, without the
// per-node container listing (a request per app, two when its AM
// container does not name the attempt: 5,000 or more on a cluster running
// 5,000 apps). Only apps on a partition that mixes node
// types are listed, and only within the cycle's request budget; the rest
// are split by the partition's type mix and marked estimated.

// partitionTypes is, per partition, the used memory of each node type
// among its usable nodes (the estimate's weights) and its type count.
type partitionTypes map[string]map[string]int64

func typesByPartition(nodes []cluster.Node, typeOf map[string]string) partitionTypes {
	out := partitionTypes{}
	for _, n := range nodes {
		if !n.Usable() {
			continue
		}
		m := out[n.Partition]
		if m == nil {
			m = map[string]int64{}
			out[n.Partition] = m
		}
		m[typeOf[n.ID]] += n.Used.MemoryMB
	}
	return out
}

// single is the partition's one node type, if it has exactly one.
func (pt partitionTypes) single(partition string) (string, bool) {
	m := pt[partition]
	if len(m) != 1 {
		return "", false
	}
	for t := range m {
		return t, true
	}
	return "", false
}

// containersByPartition splits an app's running containers over the
// partitions it uses, by used memory (one partition: all of them).
func containersByPartition(a cluster.App) map[string]int {
	w := map[string]int64{}
	for p, u := range a.UsageByPartition {
		if u.Used.MemoryMB > 0 || u.Used.VCores > 0 {
			w[p] = max(u.Used.MemoryMB, 1)
		}
	}
	return apportion(a.RunningContainers, w)
}

// needsListing reports whether the app's placement by type cannot be read
// from its partitions: it uses a partition of several node types, the RM
// sent no usage per partition (before 3.3), or its usage per partition
// was estimated (a lean apps read).
func (pt partitionTypes) needsListing(a cluster.App) bool {
	if a.RunningContainers > 0 && (len(a.UsageByPartition) == 0 || a.UsageEstimated) {
		return true
	}
	for p, k := range containersByPartition(a) {
		if _, ok := pt.single(p); !ok && k > 0 {
			return true
		}
	}
	return false
}

// byType places the app's containers per type from its partitions: exact
// for single-type partitions, split by the type mix elsewhere (estimated
// is true when any was split).
func (pt partitionTypes) byType(a cluster.App) (out map[string]int, estimated bool) {
	out = map[string]int{}
	for p, k := range containersByPartition(a) {
		if t, ok := pt.single(p); ok {
			out[t] += k
			continue
		}
		estimated = true
		for t, n := range apportion(k, pt[p]) {
			out[t] += n
		}
	}
	return out, estimated
}

// apportion splits n in proportion to weights, by largest remainder
// (Hamilton), so the parts sum to n; ties go to the smaller key.
func apportion(n int, weights map[string]int64) map[string]int {
	out := make(map[string]int, len(weights))
	var total int64
	keys := make([]string, 0, len(weights))
	for k, w := range weights {
		if w > 0 {
			total += w
			keys = append(keys, k)
		}
	}
	if n <= 0 || total == 0 {
		if n > 0 && len(weights) > 0 { // no weights (an idle partition): evenly
			even := make(map[string]int64, len(weights))
			for k := range weights {
				even[k] = 1
			}
			return apportion(n, even)
		}
		return out
	}
	sort.Strings(keys)
	type rem struct {
		key string
		r   int64
	}
	rems := make([]rem, 0, len(keys))
	given := 0
	for _, k := range keys {
		q := int64(n) * weights[k]
		out[k] = int(q / total)
		given += out[k]
		rems = append(rems, rem{k, q % total})
	}
	sort.SliceStable(rems, func(i, j int) bool { return rems[i].r > rems[j].r })
	for i := 0; given < n; i++ {
		out[rems[i%len(rems)].key]++
		given++
	}
	return out
}

// listedByType maps a per-node listing to node types.
func listedByType(byNode map[string]int, typeOf map[string]string) map[string]int {
	out := make(map[string]int, 4)
	for id, k := range byNode {
		out[typeOf[id]] += k
	}
	return out
}

// planListings decides, for the apps whose placement by type needs a
// per-node listing, which are listed this cycle: those whose cached
// listing is still valid cost nothing; of the others, the ones holding the
// most containers first, within the request budget (listingsWithin). It
// returns the indexes to list, and marks the rest's placement.
func (c *Client) planListings(apps []cluster.App, pt partitionTypes, typeOf map[string]string, now time.Time, maxAge time.Duration, budget int) map[int]bool {
	var want []int
	for i := range apps {
		a := &apps[i]
		if !pt.needsListing(*a) {
			a.ContainersByType, _ = pt.byType(*a)
			a.Placement = cluster.PlacementPartition
			continue
		}
		if byNode, ok := c.placements.get(a, now, maxAge); ok {
			a.ContainersByNode = byNode
			a.ContainersByType = listedByType(byNode, typeOf)
			a.Placement = cluster.PlacementListed
			continue
		}
		want = append(want, i)
	}
	sort.SliceStable(want, func(x, y int) bool {
		ax, ay := apps[want[x]], apps[want[y]]
		if ax.RunningContainers != ay.RunningContainers {
			return ax.RunningContainers > ay.RunningContainers
		}
		return ax.ID < ay.ID
	})
	costs := make([]int, len(want))
	for n, i := range want {
		costs[n] = listingCost(apps[i])
	}
	list := map[int]bool{}
	for n, ok := range listingsWithin(costs, budget) {
		i := want[n]
		if ok {
			list[i] = true
			continue
		}
		a := &apps[i]
		a.ContainersByType, _ = pt.byType(*a)
		a.Placement = cluster.PlacementEstimated
	}
	return list
}

// listingCost is the requests an app's per-node listing takes
// (ContainersOf): one when its AM container names the current attempt,
// two otherwise (the attempts, then the containers). A listing whose
// attempt ended meanwhile (404) costs two more; that is not planned for.
func listingCost(a cluster.App) int {
	if attemptOf(a.ID, a.AMContainerID) != "" {
		return 1
	}
	return 2
}

// listingsWithin says which listings, in priority order, fit the request
// budget (negative: no bound): each is taken while its cost fits what is
// left, so a cheaper one further down may still fit after a dearer one
// did not.
func listingsWithin(costs []int, budget int) []bool {
	out := make([]bool, len(costs))
	left := budget
	for i, c := range costs {
		if budget < 0 {
			out[i] = true
			continue
		}
		if c <= left {
			out[i] = true
			left -= c
		}
	}
	return out
}
