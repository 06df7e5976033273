// Package affinity says how much of a job's input is local to each node
// partition and what a node type's computing rate is worth once the cost of
// reading the input there is counted: Lee §4.3.1.2's task time
// T = Tr + Tp (digest 000 §1.5), with Tp inversely proportional to CR and
// Tr a step function of locality. Compute-only nodes (accelerators with no
// DataNode, Lee §4.2) read every block remotely, so a GPU that processes 2×
// faster is worth less than 2× for an I/O-heavy class. Pure: block maps
// come from the hdfs package, rates from calibrate.
package affinity

import (
	"fmt"
	"sort"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs"
)

// Bandwidth is the read bandwidth, in MiB/s, of a map by its locality: a
// replica on the node, in the rack, or elsewhere. The defaults are
// conservative figures for 10 GbE racks with an oversubscribed uplink.
type Bandwidth struct {
	NodeLocal, RackLocal, OffSwitch float64
}

// DefaultBandwidth is used when the config sets none.
var DefaultBandwidth = Bandwidth{NodeLocal: 200, RackLocal: 100, OffSwitch: 40}

// Validate rejects non-positive bandwidths.
func (b Bandwidth) Validate() error {
	if b.NodeLocal <= 0 || b.RackLocal <= 0 || b.OffSwitch <= 0 {
		return fmt.Errorf("affinity bandwidth must be positive, got node-local %v, rack-local %v, off-switch %v MiB/s", b.NodeLocal, b.RackLocal, b.OffSwitch)
	}
	return nil
}

// Locality is the share of a job's input a node type (or partition) can
// read node-locally and rack-locally; the rest is off-switch.
type Locality struct {
	NodeLocal, RackLocal float64 // shares in [0,1], NodeLocal+RackLocal ≤ 1
}

// TaskSeconds is Lee's T = Tr + Tp for one map: processing refSeconds (the
// map's time on the class's reference type with local data, less its read)
// at computing rate cr relative to that type, plus reading blockMiB at the
// locality's expected bandwidth.
func TaskSeconds(refSeconds, cr, blockMiB float64, loc Locality, bw Bandwidth) float64 {
	if cr <= 0 {
		cr = 1
	}
	off := 1 - loc.NodeLocal - loc.RackLocal
	if off < 0 {
		off = 0
	}
	read := blockMiB * (loc.NodeLocal/bw.NodeLocal + loc.RackLocal/bw.RackLocal + off/bw.OffSwitch)
	return refSeconds/cr + read
}

// EffectiveRates turns per-type computing rates (ratios to the reference
// type, processing only) into effective rates that count each type's read
// cost: the reference type's task time over each type's. refType reads
// with refLocality (normally node-local), the others with theirs.
func EffectiveRates(refSeconds, blockMiB float64, cr map[string]float64, loc map[string]Locality, refType string, bw Bandwidth) map[string]float64 {
	ref := TaskSeconds(refSeconds, 1, blockMiB, loc[refType], bw)
	out := make(map[string]float64, len(cr))
	for t, r := range cr {
		out[t] = ref / TaskSeconds(refSeconds, r, blockMiB, loc[t], bw)
	}
	return out
}

// PartitionLocality is, per partition, the share of a job's input bytes
// with a replica on one of the partition's hosts (node-local for a task
// placed there, at best) — hdfs.BlockMap.LocalFractions. A partition of
// compute-only nodes gets 0; its tasks read rack-locally when the nodes
// share racks with DataNodes (rackShared), else off-switch.
func PartitionLocality(m *hdfs.BlockMap, hostToPartition map[string]string, rackShared map[string]bool) map[string]Locality {
	out := map[string]Locality{}
	for p, f := range m.LocalFractions(hostToPartition) {
		l := Locality{NodeLocal: f}
		if rackShared[p] {
			l.RackLocal = 1 - f
		}
		out[p] = l
	}
	return out
}

// QueueShare is the input-weighted local share of a queue's running jobs
// in each partition: what moving the queue there would cost in reads.
type QueueShare struct {
	Queue string
	Local map[string]float64 // partition → share of input bytes local to it
	Bytes int64
}

// QueueShares aggregates jobs' block maps by queue.
func QueueShares(jobs map[string]*hdfs.BlockMap, queueOf map[string]string, hostToPartition map[string]string) []QueueShare {
	byQueue := map[string]*QueueShare{}
	for id, m := range jobs {
		q := queueOf[id]
		qs := byQueue[q]
		if qs == nil {
			qs = &QueueShare{Queue: q, Local: map[string]float64{}}
			byQueue[q] = qs
		}
		for p, b := range m.ByPartition(hostToPartition) {
			qs.Local[p] += float64(b)
		}
		qs.Bytes += m.Bytes
	}
	out := make([]QueueShare, 0, len(byQueue))
	for _, qs := range byQueue {
		for p := range qs.Local {
			if qs.Bytes > 0 {
				qs.Local[p] /= float64(qs.Bytes)
			}
		}
		out = append(out, *qs)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Queue < out[j].Queue })
	return out
}
