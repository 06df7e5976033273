package progress

import (
	"math"
	"sort"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Rates gives CR(node type, job class) as a ratio to the class's reference
// type; known is false when the history has too few samples.
type Rates interface {
	Rate(class, nodeType string) (ratio float64, known bool)
}

// RateMap is a Rates backed by a map: class → node type → ratio.
type RateMap map[string]map[string]float64

// Rate implements Rates.
func (m RateMap) Rate(class, nodeType string) (float64, bool) {
	r, ok := m[class][nodeType]
	return r, ok && r > 0
}

// Input is what PS needs besides the snapshot.
type Input struct {
	Snap     cluster.Snapshot
	NodeType map[string]string        // node id → node type
	ClassOf  func(cluster.App) string // job class of an app
	Rates    Rates
	// Slot is the container size that defines a "slot" (Lee's unit) when an
	// app's own size is unknown (default 2048 MB, 1 vcore).
	Slot cluster.Resource
}

// JobShare is one app's progress share.
type JobShare struct {
	AppID      string
	Queue      string
	Class      string
	PS         float64
	Containers map[string]int // node type → containers held
	// Uncalibrated lists node types whose CR for the class is unknown (taken
	// as 1 here, Lee's calibration phase still pending).
	Uncalibrated []string
}

// Shares is PS for every running app, ΣPS, min PS and the ΣPS bound.
type Shares struct {
	Jobs  []JobShare
	Sum   float64
	Min   float64
	Bound float64
	// UsableBound is the ΣPS bound over the slots a task can actually take:
	// each job's own task-container size, on each node's capacity minus
	// what AM containers hold there (AMs are not in Lee's model, and a slot
	// an AM sits on runs no task). Bound keeps the nominal slots.
	UsableBound float64
}

// rate is CR(type, class), 1 when unknown (recorded by the caller).
func rate(r Rates, class, typ string) (float64, bool) {
	if r == nil {
		return 1, false
	}
	if v, ok := r.Rate(class, typ); ok {
		return v, true
	}
	return 1, false
}

// slotsByType counts container slots of size s per node type over usable nodes.
func slotsByType(snap cluster.Snapshot, types map[string]string, s cluster.Resource) map[string]int64 {
	out := map[string]int64{}
	for _, n := range snap.Nodes {
		if n.Usable() {
			out[types[n.ID]] += n.Total.Fits(s)
		}
	}
	return out
}

// Compute returns PS by eq. 4.1 for every running app:
//
//	PS(j) = Σ_{s ∈ S_j} CR(s, j) / Σ_{s ∈ S} CR(s, j)
//
// with S_j the containers j holds (by node) and S every slot of j's size in
// the cluster, busy or free. It also returns ΣPS, min PS and the ΣPS upper
// bound (each slot to the job with the highest w(s,j) = CR(s,j)/Σ CR(·,j);
// digest 000 §1.3).
func Compute(in Input) Shares {
	slot := in.Slot
	if slot.IsZero() {
		slot = cluster.Resource{MemoryMB: 2048, VCores: 1}
	}
	slots := slotsByType(in.Snap, in.NodeType, slot)
	types := make([]string, 0, len(slots))
	for t := range slots {
		types = append(types, t)
	}
	sort.Strings(types)
	var out Shares
	out.Min = math.Inf(1)
	// maxW[type] = max_j CR(type, j) / denom_j, for the bound.
	maxW := map[string]float64{}
	apps := in.Snap.RunningApps()
	free := freeOfAMs(in.Snap, apps)
	kinds := map[usableKind]float64{} // job kind → its denominator
	for _, a := range apps {
		class := ""
		if in.ClassOf != nil {
			class = in.ClassOf(a)
		}
		js := JobShare{AppID: a.ID, Queue: a.Queue, Class: class, Containers: map[string]int{}}
		denom := 0.0
		for _, t := range types {
			r, known := rate(in.Rates, class, t)
			if !known {
				js.Uncalibrated = append(js.Uncalibrated, t)
			}
			denom += float64(slots[t]) * r
		}
		num := 0.0
		held := taskContainers(a, in.NodeType)
		for t, k := range held {
			r, _ := rate(in.Rates, class, t)
			num += float64(k) * r
			js.Containers[t] += k
		}
		if denom > 0 {
			js.PS = num / denom
			for _, t := range types {
				r, _ := rate(in.Rates, class, t)
				maxW[t] = math.Max(maxW[t], r/denom)
			}
			// Jobs of one class and task size weigh every node alike, so
			// the bound visits nodes once per such kind, not once per job
			// (5,000 jobs × 10,000 nodes at scale-10k).
			kinds[usableKind{class: class, size: taskSize(a, slot)}] = denom
		}
		out.Sum += js.PS
		out.Min = math.Min(out.Min, js.PS)
		out.Jobs = append(out.Jobs, js)
	}
	if len(out.Jobs) == 0 {
		out.Min = 0
	}
	for _, t := range types {
		out.Bound += float64(slots[t]) * maxW[t]
	}
	out.UsableBound = usableBound(in, free, kinds)
	return out
}

// usableKind is what a node's weight for a job depends on besides the node:
// the job's class (its rates) and its task size. Its denominator (eq. 4.1)
// depends on the class alone.
type usableKind struct {
	class string
	size  cluster.Resource
}

// usableBound is Σ over usable nodes of the best job kind's
// slots-that-fit × w(s,j) there (free: node resources less the AMs').
//
// A node's best depends only on its type and what is free there, so it is
// worked out once per such pair (most nodes of a type are alike), not per
// node: nodes × kinds was 10,000 × the classes at scale-10k. The sum still
// runs over the nodes in order, so it is the same to the bit.
func usableBound(in Input, free map[string]cluster.Resource, kinds map[usableKind]float64) float64 {
	type nodeKind struct {
		typ  string
		free cluster.Resource
	}
	bestOf := map[nodeKind]float64{}
	sum := 0.0
	for _, n := range in.Snap.Nodes {
		if !n.Usable() {
			continue
		}
		nk := nodeKind{in.NodeType[n.ID], free[n.ID]}
		best, seen := bestOf[nk]
		if !seen {
			for k, denom := range kinds {
				r, _ := rate(in.Rates, k.class, nk.typ)
				best = math.Max(best, float64(nk.free.Fits(k.size))*r/denom)
			}
			bestOf[nk] = best
		}
		sum += best
	}
	return sum
}

// taskContainers is S_j of eq. 4.1 per node type: the containers running
// the job's tasks. The RM's counts (per node, per partition) include the AM
// container, which runs no task, so one is taken off on the AM's node.
func taskContainers(a cluster.App, nodeType map[string]string) map[string]int {
	held := map[string]int{}
	if a.ContainersByType != nil { // observe placed it by type (issue 19)
		for t, k := range a.ContainersByType {
			held[t] = k
		}
	} else {
		for nodeID, k := range a.ContainersByNode {
			held[nodeType[nodeID]] += k
		}
	}
	if a.AMNodeID != "" {
		if t := nodeType[a.AMNodeID]; held[t] > 0 {
			held[t]--
		}
	}
	return held
}

// amResource is what the app's AM container holds (amUsed summed over
// partitions; zero when the RM does not say).
func amResource(a cluster.App) cluster.Resource {
	var r cluster.Resource
	for _, u := range a.UsageByPartition {
		r.MemoryMB += u.AMUsed.MemoryMB
		r.VCores += u.AMUsed.VCores
	}
	return r
}

// TaskSize is the size of one of the app's task containers as taskSize
// measures it, or zero when neither the job's request nor the app's
// allocations say (no stand-in).
func TaskSize(a cluster.App) cluster.Resource { return taskSize(a, cluster.Resource{}) }

// taskSize is the size of one of the app's task containers: the job's map
// request when the job was read, else measured as (allocated − AM) /
// (running containers − 1), else def (a stand-in: the configured slot).
func taskSize(a cluster.App, def cluster.Resource) cluster.Resource {
	if a.Job != nil && !a.Job.ContainerSize.IsZero() {
		return a.Job.ContainerSize
	}
	am := amResource(a)
	n := int64(a.RunningContainers - 1)
	if a.AMNodeID == "" || am.IsZero() || n <= 0 {
		return def
	}
	s := cluster.Resource{MemoryMB: (a.Allocated.MemoryMB - am.MemoryMB) / n, VCores: (a.Allocated.VCores - am.VCores) / n}
	if s.MemoryMB <= 0 || s.VCores <= 0 {
		return def
	}
	return s
}

// NodesFreeOfAMs is each usable node's capacity minus what the running
// apps' AM containers hold on it: what tasks can ever use there while those
// AMs run (the RM's preemption takes AMs last).
func NodesFreeOfAMs(snap cluster.Snapshot) map[string]cluster.Resource {
	return freeOfAMs(snap, snap.RunningApps())
}

// freeOfAMs is each usable node's capacity minus the AM containers on it.
func freeOfAMs(snap cluster.Snapshot, apps []cluster.App) map[string]cluster.Resource {
	out := map[string]cluster.Resource{}
	for _, n := range snap.Nodes {
		if n.Usable() {
			out[n.ID] = n.Total
		}
	}
	for _, a := range apps {
		r, ok := out[a.AMNodeID]
		if !ok {
			continue
		}
		am := amResource(a)
		r.MemoryMB = max(0, r.MemoryMB-am.MemoryMB)
		r.VCores = max(0, r.VCores-am.VCores)
		out[a.AMNodeID] = r
	}
	return out
}

// SlotShare is the worked-example form of eq. 4.1: a job's containers per
// node type and the slots per type, with its rates.
func SlotShare(held, slots map[string]int, cr map[string]float64) float64 {
	num, den := 0.0, 0.0
	for t, n := range slots {
		r := cr[t]
		den += float64(n) * r
		num += float64(held[t]) * r
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// Jain is Jain's fairness index of x: (Σx)² / (n·Σx²), 1 when all equal.
func Jain(x []float64) float64 {
	if len(x) == 0 {
		return 1
	}
	s, s2 := 0.0, 0.0
	for _, v := range x {
		s += v
		s2 += v * v
	}
	if s2 == 0 {
		return 1
	}
	return s * s / (float64(len(x)) * s2)
}
