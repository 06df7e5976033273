package yarn

import (
	"maps"
	"sort"
	"sync"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Lean apps reads (issue 19). An app's resourceInfo (its use per
// partition, with every resource's resourceInformations) is most of the
// apps answer: recorded on 3.3.6, about 2.5 KB per partition against
// under 1 KB for the rest of the app; at scale-10k 23 of its 28 MiB. It
// is read in full once, then kept per app, and the next snapshots ask
// with deSelects=resourceInfo while the kept reads are younger than
// AppUsageMaxAge:
//   - an app whose running containers, allocation and AM container are
//     what they were when its use was read keeps that use (as the
//     placements cache keeps a listing);
//   - any other app (its use changed, or it is new) gets its allocation
//     split over the partitions in proportion to what its queue uses
//     there beyond the kept apps (the scheduler answer, read in the same
//     snapshot, says what each leaf uses per partition), and is marked
//     UsageEstimated: its placement is then never exact by partition.
// The split sums, per queue and partition, to what the RM says the queue
// uses, less what the kept apps use.

// An app whose AM container is not the one kept gets its AM use from its
// queue's (estimateAMUse, amusage.go), marked AMEstimated.
//
// Where node types are given and no partition holds a single node type,
// resourceInfo places no app exactly (every app on a mixed partition is
// listed or estimated by type anyway), so apps are read lean however old
// the kept use: each app not kept unchanged is estimated as above. The
// decision looks at the last listing kept; the first snapshot, with none,
// reads in full. (Reading it lean on the guess that every partition
// mixes, then in full where one does not, cost scale-10k — whose gpu
// partition holds gpu nodes only — both reads: 0.97x the exporter's CPU
// against 0.81x before, same bench.)

// DefaultAppUsageMaxAge is ObserveOptions.AppUsageMaxAge's default.
const DefaultAppUsageMaxAge = 5 * time.Minute

// usageEntry is one app's use per partition as last read.
type usageEntry struct {
	containers  int
	allocated   cluster.Resource
	amContainer string
	usage       map[string]cluster.AppPartitionUsage
}

// appUsageCache keeps apps' use per partition from the last full read.
type appUsageCache struct {
	mu     sync.Mutex
	have   bool
	rm     string
	fullAt time.Time
	m      map[string]usageEntry
	// noUsage: the last scheduler answer had no use per partition.
	noUsage bool
}

// sawQueues records whether the snapshot's scheduler answer had use per
// partition (without it, changed apps cannot be split).
func (u *appUsageCache) sawQueues(usage bool) {
	u.mu.Lock()
	u.noUsage = !usage
	u.mu.Unlock()
}

// nodeTypesSeen is what the latest node listing says about the
// partitions' node types, for the apps-read decision.
type nodeTypesSeen int

const (
	typesNotGiven  nodeTypesSeen = iota // no node types: placement by partition unused
	typesNoListing                      // node types given, no listing read yet
	typesMixed                          // every usable partition mixes node types
	typesSingle                         // some usable partition holds one node type
)

// seenTypes classifies a node listing's partitions by node type.
func seenTypes(nodes []cluster.Node, nodeType func(cluster.Node) string) nodeTypesSeen {
	if nodeType == nil {
		return typesNotGiven
	}
	byPartition := map[string]map[string]bool{}
	for _, n := range nodes {
		if !n.Usable() {
			continue
		}
		m := byPartition[n.Partition]
		if m == nil {
			m = map[string]bool{}
			byPartition[n.Partition] = m
		}
		m[nodeType(n)] = true
	}
	for _, m := range byPartition {
		if len(m) == 1 {
			return typesSingle
		}
	}
	return typesMixed
}

// appsReadInput is what the lean-or-full decision looks at.
type appsReadInput struct {
	Have   bool          // a full read is kept
	LastRM string        // the RM it was read from
	RM     string        // the RM now
	FullAt time.Time     // when it was read
	Time   time.Time     // now
	MaxAge time.Duration // ObserveOptions.AppUsageMaxAge, defaulted
	// NoUsage: the scheduler answer of the last snapshot had no use per
	// partition (before 3.x), so changed apps could not be split.
	NoUsage bool
	// Types is what the latest node listing says of partitions' node
	// types.
	Types nodeTypesSeen
}

// Reasons for an apps-read decision (logged, and tested).
const (
	appsLean      = "lean: use per partition kept, resourceInfo left out"
	appsNone      = "full: no use per partition kept"
	appsAlways    = "full: reuse off (max age negative)"
	appsOtherRM   = "full: another RM answers"
	appsAged      = "full: kept use older than the max age"
	appsClockBack = "full: clock before the last full read"
	appsNoQueues  = "full: the scheduler answer has no use per partition"
	appsMixed     = "lean: no partition holds one node type, resourceInfo places no app exactly"
)

// decideAppsRead says whether /apps may leave resourceInfo out.
func decideAppsRead(in appsReadInput) (lean bool, why string) {
	switch {
	case in.MaxAge < 0:
		return false, appsAlways
	case in.NoUsage:
		return false, appsNoQueues
	case in.Types == typesMixed:
		return true, appsMixed
	case !in.Have:
		return false, appsNone
	case in.RM != in.LastRM:
		return false, appsOtherRM
	case in.Time.Before(in.FullAt):
		return false, appsClockBack
	case in.Time.Sub(in.FullAt) > in.MaxAge:
		return false, appsAged
	}
	return true, appsLean
}

// plan is the decision for this snapshot, from what is kept.
func (u *appUsageCache) plan(rm string, now time.Time, maxAge time.Duration, types nodeTypesSeen) (bool, string) {
	if maxAge == 0 {
		maxAge = DefaultAppUsageMaxAge
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return decideAppsRead(appsReadInput{Have: u.have, LastRM: u.rm, RM: rm, FullAt: u.fullAt, Time: now, MaxAge: maxAge, NoUsage: u.noUsage, Types: types})
}

// putFull keeps a full read's use per app (apps without resourceInfo —
// an RM that does not send it — leave nothing kept).
func (u *appUsageCache) putFull(rm string, now time.Time, apps []cluster.App) {
	m := make(map[string]usageEntry, len(apps))
	for _, a := range apps {
		if a.UsageByPartition == nil {
			continue
		}
		m[a.ID] = usageEntry{containers: a.RunningContainers, allocated: a.Allocated, amContainer: a.AMContainerID, usage: a.UsageByPartition}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.have, u.rm, u.fullAt, u.m = len(m) > 0, rm, now, m
}

// keep forgets apps no longer running.
func (u *appUsageCache) keep(apps []cluster.App) {
	live := make(map[string]bool, len(apps))
	for _, a := range apps {
		live[a.ID] = true
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for id := range u.m {
		if !live[id] {
			delete(u.m, id)
		}
	}
}

// entries is a copy of the kept entries (the fill step is pure).
func (u *appUsageCache) entries() map[string]usageEntry {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make(map[string]usageEntry, len(u.m))
	for k, v := range u.m {
		out[k] = v
	}
	return out
}

// unchanged reports whether the app is as it was when e was read.
func (e usageEntry) unchanged(a cluster.App) bool {
	return e.containers == a.RunningContainers && e.allocated == a.Allocated && e.amContainer == a.AMContainerID
}

// fillUsage gives each app of a lean read its use per partition: kept
// where the app is unchanged, else estimated from its queue's use beyond
// the kept apps (queues: leaves with ByPartition from the same snapshot;
// apps' Queue resolved to paths). It returns how many were kept and how
// many estimated (split over several partitions, or by no queue use).
func fillUsage(apps []cluster.App, kept map[string]usageEntry, queues []cluster.Queue) (nKept, nEstimated int) {
	// What each leaf uses per partition, less reservations (an app's
	// used does not count what it reserved; a queue's does).
	residual := map[string]map[string]int64{}
	for _, q := range queues {
		if !q.Leaf {
			continue
		}
		m := map[string]int64{}
		for p, c := range q.ByPartition {
			m[p] = c.Used.Sub(c.Reserved).MemoryMB
		}
		residual[q.Path] = m
	}
	var estimate []int
	for i := range apps {
		a := &apps[i]
		if a.UsageByPartition != nil {
			continue // read with resourceInfo (a full read, or an RM that ignores deSelects)
		}
		if e, ok := kept[a.ID]; ok && e.unchanged(*a) {
			a.UsageByPartition = maps.Clone(e.usage) // the snapshot's own: a caller may edit it
			nKept++
			for p, u := range e.usage {
				if r := residual[a.Queue]; r != nil {
					r[p] -= u.Used.MemoryMB
				}
			}
			continue
		}
		estimate = append(estimate, i)
	}
	for _, i := range estimate {
		a := &apps[i]
		w := map[string]int64{}
		for p, m := range residual[a.Queue] {
			if m > 0 {
				w[p] = m
			}
		}
		// One partition left to the queue's changed apps: that is where
		// they all are, as exact as the kept apps' use.
		derived := len(w) == 1
		if len(w) == 0 {
			w[cluster.DefaultPartition] = 1 // the queue's use says nothing more: the default partition
		}
		usage := splitResource(a.Allocated, w)
		// The AM container is the one kept while the attempt is.
		if e, ok := kept[a.ID]; ok && e.amContainer == a.AMContainerID {
			for p, u := range e.usage {
				if !u.AMUsed.IsZero() {
					pu := usage[p]
					pu.AMUsed = u.AMUsed
					usage[p] = pu
				}
			}
		}
		a.UsageByPartition = usage
		if !derived {
			a.UsageEstimated = true
			nEstimated++
		}
	}
	return nKept, nEstimated
}

// splitResource splits r over partitions by weight (largest remainder
// per dimension, as apportion), as used resources.
func splitResource(r cluster.Resource, w map[string]int64) map[string]cluster.AppPartitionUsage {
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]cluster.AppPartitionUsage, len(keys))
	mem, vc, gpu := apportion64(r.MemoryMB, w), apportion64(r.VCores, w), apportion64(r.GPUs, w)
	for _, k := range keys {
		out[k] = cluster.AppPartitionUsage{Used: cluster.Resource{MemoryMB: mem[k], VCores: vc[k], GPUs: gpu[k]}}
	}
	return out
}

// apportion64 is apportion for int64 amounts.
func apportion64(n int64, w map[string]int64) map[string]int64 {
	out := map[string]int64{}
	if n <= 0 {
		return out
	}
	// Amounts here are MB and vcores of one app: well inside int.
	for k, v := range apportion(int(n), w) {
		out[k] = int64(v)
	}
	return out
}

// carryUsage reports whether any app came with its use per partition: a
// full read, or an RM that sent resourceInfo although asked not to.
func carryUsage(apps []cluster.App) bool {
	for _, a := range apps {
		if a.UsageByPartition != nil {
			return true
		}
	}
	return false
}
