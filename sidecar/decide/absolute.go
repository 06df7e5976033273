package decide

import (
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// resolveAbsolute gives the queues of an absolute-resource tree
// ([memory=…,vcores=…]) their share of each partition: the RM's effective
// absoluteCapacity where the snapshot has it (the RM scales the
// configured resources down when the children ask for more than the
// parent has), else the configured memory over the partition's.
//
// Without it every step read an absolute queue's guarantee as 0: on
// held-out cluster 1005 (a flat absolute tree) the replay judged its
// candidates against an admin's configuration that guaranteed no queue
// anything, routed two queues to the 3-node GPU partition, and one class
// ran 2.16× slower than stock.
func resolveAbsolute(tree *schedconf.Tree, snap *cluster.Snapshot) {
	queueOf := snap.QueueIndex()
	totals := partitionMemory(snap)
	tree.ResolveAbsolute(func(q *schedconf.Queue, label string) (float64, bool) {
		if sq, ok := queueOf(q.Path); ok {
			if c, ok := sq.ByPartition[label]; ok && c.AbsoluteCapacity > 0 {
				return c.AbsoluteCapacity / 100, true
			}
		}
		return configuredShare(q.Capacity[label], totals[label])
	})
}

// configuredShare is an absolute capacity's memory over the partition's
// (capped at the whole; ok false when either is unknown).
func configuredShare(v schedconf.CapacityValue, total int64) (float64, bool) {
	mem := v.Absolute["memory"]
	if v.Mode != schedconf.ModeAbsolute || mem <= 0 || total <= 0 {
		return 0, false
	}
	return min(1, float64(mem)/float64(total)), true
}

// withAbsoluteShares fills the partition share of first-seen absolute
// values recorded as 0 (before resolveAbsolute, every absolute queue was
// recorded so): the live tree's where the admin's value is still the live
// one, else the recorded memory over the partition's.
func withAbsoluteShares(seen map[string]SeenValue, tree *schedconf.Tree, snap *cluster.Snapshot) {
	totals := partitionMemory(snap)
	for _, q := range tree.ByPath {
		for _, p := range tree.Labels {
			k := SeenKey(q.Path, p)
			v, ok := seen[k]
			if !ok || v.Unset || v.Mode != string(schedconf.ModeAbsolute) || v.AbsShare > 0 {
				continue
			}
			if live, ok := q.Capacity[p]; ok && live.Raw == v.Raw {
				v.AbsShare = q.AbsCapacity[p]
			} else if c, err := schedconf.ParseCapacity(v.Raw); err == nil {
				v.AbsShare, _ = configuredShare(c, totals[p])
			}
			seen[k] = v
		}
	}
}

// partitionMemory is each partition's total memory (MB) in the snapshot.
func partitionMemory(snap *cluster.Snapshot) map[string]int64 {
	out := map[string]int64{}
	for _, p := range snap.Partitions {
		out[p.Name] = p.Total.MemoryMB
	}
	return out
}
