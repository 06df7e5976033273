package progress

import (
	"container/heap"
	"fmt"
	"math"
	"sort"
	"strings"
)

// PartitionSlots is a node-label partition and its container slots per node type.
type PartitionSlots struct {
	Name      string
	Exclusive bool
	Slots     map[string]int64 // node type → slots of the plan's container size
}

func (p PartitionSlots) total() int64 {
	var n int64
	for _, s := range p.Slots {
		n += s
	}
	return n
}

// QueueDemand is a leaf queue as the planner sees it.
type QueueDemand struct {
	Path   string
	Weight float64
	// Demand is the containers the queue's jobs could use now (running +
	// pending tasks); 0 means idle.
	Demand int64
	// Mix is the queue's job classes weighted by their demand.
	Mix map[string]float64
	// Accessible partitions ("" always).
	Accessible []string
	// Home is the partition its jobs run in now (default-node-label-expression).
	Home string
	// Pinned queues keep their home.
	Pinned bool
	// Sampled: the queue's calibration maps already ran where it was sent
	// and their rates wait for its jobs' history (JobHistory has a job
	// once it finished); it is not sent to calibrate again meanwhile.
	Sampled bool
}

// PlanInput is everything the capacity plan needs; no I/O, no clock.
type PlanInput struct {
	Partitions []PartitionSlots
	Queues     []QueueDemand
	Rates      Rates
	// FairnessPenalty weighs PS below the weighted fair share against ΣPS
	// (default 10: fairness first, then efficiency).
	FairnessPenalty float64
	// CalibrationMaxContainers, when positive, is the largest demand a
	// queue sent to calibrate may have: what calibration exposes to an
	// unmeasured partition is bounded (issue 32), never a whole busy
	// queue's home.
	CalibrationMaxContainers int64
}

// QueuePlan is the plan for one leaf queue.
type QueuePlan struct {
	Path string
	// Home is the partition the queue's jobs should ask for: YARN gives an
	// app's containers from one partition (its label expression), so a queue
	// picks one; default-partition queues may also borrow idle
	// non-exclusive partitions.
	Home string
	// Capacity is the guaranteed share of each partition, in percent.
	Capacity map[string]float64
	// Containers is what the water-filling gave it per partition (borrowed
	// included), and Rate its jobs' mean CR there.
	Containers   map[string]float64
	Rate         map[string]float64
	PS           float64 // predicted progress share under the plan
	FairShare    float64 // weighted fair share of PS
	Uncalibrated []string
	// Calibrating names the partition the queue was sent to so that its
	// classes' rates there get measured ("" when it was not).
	Calibrating string
	Reason      string
}

// CapacityPlan is the planner's answer.
type CapacityPlan struct {
	Queues []QueuePlan
	SumPS  float64
	MinPS  float64 // min over queues with demand of PS / fair share
	Bound  float64 // ΣPS upper bound of the instance
	Notes  []string
}

type queueModel struct {
	QueueDemand
	rate  map[string]float64 // partition → mean CR of its mix
	denom float64            // Σ_p C_p · rate_p (eq. 4.1 denominator)
	fair  float64
	unk   []string
}

// Plan computes per-partition queue capacities that make PS fair and ΣPS
// high: Lee's Algorithm 2 (digest 000 §1.7) lifted to queues × partitions
// (§5.4). Each queue picks a home partition (local search from the current
// homes: move the queue whose move best raises the score); within each
// partition, slots are water-filled to the queue with the lowest PS/weight
// still wanting containers (Algorithm 2's "job with the lowest progress
// share first"); idle slots of non-exclusive partitions are lent to
// default-partition queues, as YARN lends them.
func Plan(in PlanInput) CapacityPlan {
	if in.FairnessPenalty == 0 {
		in.FairnessPenalty = 10
	}
	qs := buildModels(in)
	homes := map[string]string{}
	for _, q := range qs {
		homes[q.Path] = q.Home
		if !canUse(q.Accessible, q.Home) {
			homes[q.Path] = ""
		}
	}
	localSearch(in, qs, homes)
	best, _ := evaluate(in, qs, homes)
	if calibrating := calibrationHomes(in, qs, homes); len(calibrating) > 0 {
		best, _ = evaluate(in, qs, homes)
		for i := range best.Queues {
			best.Queues[i].Calibrating = calibrating[best.Queues[i].Path]
		}
	}
	best.Bound = bound(in, qs)
	byPath := make(map[string]*queueModel, len(qs)) // the last of a path, as reason's scan took
	for _, q := range qs {
		byPath[q.Path] = q
	}
	for i := range best.Queues {
		best.Queues[i].Reason = reason(best.Queues[i], byPath[best.Queues[i].Path])
	}
	return best
}

// calibrationHomes gives jobs of unknown rate their calibration share (Lee
// §4.3.1.4: a new job runs on every node type before its rates are trusted).
// YARN cannot place one job's containers from outside, so the share is a
// whole queue: in each partition where no queue with demand lives and whose
// node types some queue's classes have no measured rate on, the queue with
// the least demand among those moves in until its rates are known; the
// next plan decides on measured rates. A queue whose sample already ran
// there (Sampled) is not sent again while its rates wait for the job's
// history. homes is updated in place.
func calibrationHomes(in PlanInput, qs []*queueModel, homes map[string]string) map[string]string {
	out := map[string]string{}
	for _, p := range in.Partitions {
		if p.Name == "" || p.total() == 0 {
			continue
		}
		occupied := false
		for _, q := range qs {
			if homes[q.Path] == p.Name && q.Demand > 0 {
				occupied = true
			}
		}
		if occupied {
			continue
		}
		var pick *queueModel
		for _, q := range qs {
			if q.Demand == 0 || q.Pinned || q.Sampled || homes[q.Path] != "" || out[q.Path] != "" || !canUse(q.Accessible, p.Name) || !unknownIn(in, q, p) ||
				(in.CalibrationMaxContainers > 0 && q.Demand > in.CalibrationMaxContainers) {
				continue
			}
			if pick == nil || q.Demand < pick.Demand {
				pick = q
			}
		}
		if pick != nil {
			homes[pick.Path] = p.Name
			out[pick.Path] = p.Name
		}
	}
	return out
}

// unknownIn: the queue's classes lack a rate on a type of p, yet have
// one elsewhere (a brand-new class is first measured where it runs anyway).
func unknownIn(in PlanInput, q *queueModel, p PartitionSlots) bool {
	unk := map[string]bool{}
	for _, t := range q.unk {
		unk[t] = true
	}
	missing, knownElsewhere := false, false
	for _, part := range in.Partitions {
		for t, n := range part.Slots {
			switch {
			case n == 0:
			case part.Name == p.Name && unk[t]:
				missing = true
			case part.Name != p.Name && !unk[t]:
				knownElsewhere = true
			}
		}
	}
	return missing && knownElsewhere
}

// bestImprovementQueues: up to this many queues the local search takes
// the best move each round (O(Q²·P) evaluations); beyond, it takes each
// improving move as found, in up to three passes (O(Q·P) per pass), so a
// 200-queue plan takes well under a second.
const bestImprovementQueues = 24

// localSearch moves queue homes while the score rises: up to
// bestImprovementQueues it applies the best move of each round (up to
// 2Q+2 rounds); beyond, each improving move as found (up to 3 passes).
// homes is updated in place.
func localSearch(in PlanInput, qs []*queueModel, homes map[string]string) {
	_, score := evaluate(in, qs, homes)
	first := len(qs) > bestImprovementQueues
	rounds := 2*len(qs) + 2
	if first {
		rounds = 3
	}
	for r := 0; r < rounds; r++ {
		var moveQ, moveP string
		improved := false
		for _, q := range qs {
			for _, p := range in.Partitions {
				if !movable(q, p, homes) {
					continue
				}
				old := homes[q.Path]
				homes[q.Path] = p.Name
				if _, s := evaluate(in, qs, homes); s > score+1e-9 {
					score, improved = s, true
					if first {
						continue // keep the move
					}
					moveQ, moveP = q.Path, p.Name
				}
				homes[q.Path] = old
			}
		}
		if !improved {
			return
		}
		if !first {
			homes[moveQ] = moveP
		}
	}
}

// movable: moving q's home to p is a candidate of the local search. Only
// a move to where the queue's jobs run faster, or back to the default
// partition, can raise the score; skipping the rest keeps the search
// near-linear in queues.
func movable(q *queueModel, p PartitionSlots, homes map[string]string) bool {
	if q.Pinned || q.Demand == 0 || p.Name == homes[q.Path] || !canUse(q.Accessible, p.Name) || p.total() == 0 {
		return false
	}
	return p.Name == "" || q.rate[p.Name] > q.rate[homes[q.Path]]*1.05
}

func canUse(acc []string, p string) bool {
	if p == "" {
		return true
	}
	for _, a := range acc {
		if a == "*" || a == p {
			return true
		}
	}
	return false
}

// buildModels computes each queue's mean rate per partition and eq. 4.1's
// denominator for its mix.
func buildModels(in PlanInput) []*queueModel {
	var wsum float64
	for _, q := range in.Queues {
		if q.Demand > 0 {
			wsum += q.Weight
		}
	}
	var out []*queueModel
	for _, q := range in.Queues {
		m := &queueModel{QueueDemand: q, rate: map[string]float64{}}
		unknown := map[string]bool{}
		for _, p := range in.Partitions {
			total := p.total()
			if total == 0 {
				continue
			}
			r := 0.0
			mixSum := 0.0
			for class, share := range q.Mix {
				mixSum += share
				cr := 0.0
				for typ, n := range p.Slots {
					v, known := rate(in.Rates, class, typ)
					if !known {
						unknown[typ] = true
					}
					cr += float64(n) * v
				}
				r += share * cr / float64(total)
			}
			if mixSum == 0 {
				r, mixSum = 1, 1
			}
			m.rate[p.Name] = r / mixSum
			m.denom += float64(total) * m.rate[p.Name]
		}
		for t := range unknown {
			m.unk = append(m.unk, t)
		}
		sort.Strings(m.unk)
		if q.Demand > 0 && wsum > 0 {
			m.fair = q.Weight / wsum
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// evaluate water-fills every partition for the given homes and scores it:
// ΣPS minus the penalty for queues below their fair share (capped at what
// their demand could reach).
func evaluate(in PlanInput, qs []*queueModel, homes map[string]string) (CapacityPlan, float64) {
	x := map[string]map[string]float64{} // queue → partition → containers
	guaranteed := map[string]map[string]float64{}
	for _, q := range qs {
		x[q.Path], guaranteed[q.Path] = map[string]float64{}, map[string]float64{}
	}
	// Running sums per queue (containers held, Σ containers × rate), so a
	// water-filling step costs O(log queues), not a walk over the maps.
	heldSum := map[string]float64{}
	psNum := map[string]float64{}
	ps := func(q *queueModel) float64 {
		if q.denom == 0 {
			return 0
		}
		return psNum[q.Path] / q.denom
	}
	held := func(q *queueModel) float64 { return heldSum[q.Path] }
	fill := func(p PartitionSlots, members []*queueModel, slots float64, borrowed bool) float64 {
		chunk := math.Max(1, slots/256)
		h := &psHeap{ps: ps}
		for _, q := range members {
			if held(q) < float64(q.Demand)-1e-9 {
				h.qs = append(h.qs, q)
			}
		}
		heap.Init(h)
		for slots >= 1e-9 && h.Len() > 0 {
			pick := h.qs[0] // lowest PS per weight still wanting containers
			give := math.Min(math.Min(chunk, slots), float64(pick.Demand)-held(pick))
			x[pick.Path][p.Name] += give
			heldSum[pick.Path] += give
			psNum[pick.Path] += give * pick.rate[p.Name]
			if !borrowed {
				guaranteed[pick.Path][p.Name] += give
			}
			slots -= give
			if held(pick) >= float64(pick.Demand)-1e-9 {
				heap.Pop(h)
			} else {
				heap.Fix(h, 0)
			}
		}
		return slots
	}
	leftover := map[string]float64{}
	// Labelled partitions first for their own queues, then the default
	// partition, then lending of idle non-exclusive slots to default queues.
	parts := append([]PartitionSlots(nil), in.Partitions...)
	sort.Slice(parts, func(i, j int) bool { return parts[i].Name > parts[j].Name }) // "" last
	for _, p := range parts {
		var members []*queueModel
		for _, q := range qs {
			if homes[q.Path] == p.Name && q.Demand > 0 {
				members = append(members, q)
			}
		}
		leftover[p.Name] = fill(p, members, float64(p.total()), false)
	}
	var defaults []*queueModel
	for _, q := range qs {
		if homes[q.Path] == "" && q.Demand > 0 {
			defaults = append(defaults, q)
		}
	}
	for _, p := range parts {
		if p.Name != "" && !p.Exclusive && leftover[p.Name] > 0 {
			leftover[p.Name] = fill(p, defaults, leftover[p.Name], true)
		}
	}

	plan := CapacityPlan{MinPS: math.Inf(1)}
	score := 0.0
	for _, q := range qs {
		qp := QueuePlan{Path: q.Path, Home: homes[q.Path], Capacity: map[string]float64{}, Containers: x[q.Path],
			Rate: q.rate, PS: ps(q), FairShare: q.fair, Uncalibrated: q.unk}
		plan.SumPS += qp.PS
		if q.Demand > 0 && q.fair > 0 {
			best := 0.0
			for _, r := range q.rate {
				best = math.Max(best, r)
			}
			reach := math.Min(q.fair, float64(q.Demand)*best/math.Max(q.denom, 1e-9))
			plan.MinPS = math.Min(plan.MinPS, qp.PS/q.fair)
			score -= in.FairnessPenalty * math.Max(0, reach-qp.PS)
		}
		plan.Queues = append(plan.Queues, qp)
	}
	if math.IsInf(plan.MinPS, 1) {
		plan.MinPS = 0
	}
	score += plan.SumPS
	// Capacities: guaranteed slots as a share of the partition; what no
	// queue needs goes to the partition's home queues by weight (or, when
	// none lives there, to every queue that may use it), so each
	// partition's capacities sum to exactly 100 and idle slots stay
	// borrowable through maximum-capacity.
	accessible := accessibleOf(qs)
	for _, p := range in.Partitions {
		total := float64(p.total())
		if total == 0 {
			continue
		}
		var owners []*queueModel
		var wsum float64
		for _, q := range qs {
			if homes[q.Path] == p.Name {
				owners = append(owners, q)
				wsum += math.Max(q.Weight, 1e-6)
			}
		}
		if len(owners) == 0 {
			for _, q := range qs {
				if canUse(q.Accessible, p.Name) {
					owners = append(owners, q)
					wsum += math.Max(q.Weight, 1e-6)
				}
			}
		}
		used := 0.0
		for _, q := range qs {
			used += guaranteed[q.Path][p.Name]
		}
		spare := math.Max(0, total-used)
		// Without contention capacities decide nothing (every request is
		// met through elasticity), so they follow the weights alone and do
		// not move with each cycle's demand: no churn in the audit log.
		uncontended := leftover[p.Name] > 1e-9
		if uncontended {
			for _, q := range qs {
				guaranteed[q.Path][p.Name] = 0
			}
			spare = total
		}
		ownerWeight := make(map[string]float64, len(owners))
		for _, o := range owners {
			ownerWeight[o.Path] = math.Max(o.Weight, 1e-6)
		}
		for i := range plan.Queues {
			qp := &plan.Queues[i]
			pct := 100 * guaranteed[qp.Path][p.Name] / total
			if w, ok := ownerWeight[qp.Path]; ok {
				pct += 100 * spare / total * w / wsum
			}
			if pct > 0 || canUse(accessible[qp.Path], p.Name) {
				qp.Capacity[p.Name] = pct
			}
		}
	}
	return plan, score
}

// accessibleOf is each queue's accessible labels by path (the first
// model of a path), looked up per queue and partition.
func accessibleOf(qs []*queueModel) map[string][]string {
	out := make(map[string][]string, len(qs))
	for _, q := range qs {
		if _, ok := out[q.Path]; !ok {
			out[q.Path] = q.Accessible
		}
	}
	return out
}

// bound is the ΣPS upper bound for the queues' mixes: every slot to the
// queue with the highest normalised rate w = CR/denominator (digest 000 §1.3).
func bound(in PlanInput, qs []*queueModel) float64 {
	b := 0.0
	for _, p := range in.Partitions {
		best := 0.0
		for _, q := range qs {
			if q.Demand > 0 && q.denom > 0 {
				best = math.Max(best, q.rate[p.Name]/q.denom)
			}
		}
		b += float64(p.total()) * best
	}
	return b
}

// reason says in words why a queue (q, its model) gets its home and shares.
func reason(qp QueuePlan, q *queueModel) string {
	if q == nil || q.Demand == 0 {
		return fmt.Sprintf("queue %s: idle; its share goes to the queues that need it", short(qp.Path))
	}
	// Rates relative to the default partition: "2.0× faster on gpu".
	base := q.rate[""]
	if base <= 0 {
		base = 1
	}
	var rates []string
	for _, p := range sortedKeys(q.rate) {
		if p != "" {
			rates = append(rates, fmt.Sprintf("%.1f× on %s", q.rate[p]/base, partName(p)))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "queue %s: jobs run %s vs the default partition", short(qp.Path), strings.Join(rates, ", "))
	if qp.Calibrating != "" {
		fmt.Fprintf(&b, "; sent to %s to measure its rates there (no finished maps on %s yet; Lee's calibration share)", partName(qp.Home), strings.Join(qp.Uncalibrated, ", "))
	} else if qp.Home != "" {
		fmt.Fprintf(&b, "; home %s, where they gain most", partName(qp.Home))
	} else {
		b.WriteString("; stays on the default partition")
	}
	fmt.Fprintf(&b, "; predicted PS %.2f vs fair share %.2f", qp.PS, qp.FairShare)
	if len(qp.Uncalibrated) > 0 {
		fmt.Fprintf(&b, "; uncalibrated on %s (rate taken as 1 until each type has run its maps)", strings.Join(qp.Uncalibrated, ", "))
	}
	return b.String()
}

func short(path string) string { return strings.TrimPrefix(path, "root.") }

func partName(p string) string {
	if p == "" {
		return "default"
	}
	return p
}

func sortedKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// psHeap orders queues by PS per unit of weight, lowest first (ties by
// path, for deterministic plans).
type psHeap struct {
	qs []*queueModel
	ps func(*queueModel) float64
}

func (h *psHeap) Len() int { return len(h.qs) }
func (h *psHeap) Less(i, j int) bool {
	a := h.ps(h.qs[i]) / math.Max(h.qs[i].Weight, 1e-9)
	b := h.ps(h.qs[j]) / math.Max(h.qs[j].Weight, 1e-9)
	if a != b {
		return a < b
	}
	return h.qs[i].Path < h.qs[j].Path
}
func (h *psHeap) Swap(i, j int) { h.qs[i], h.qs[j] = h.qs[j], h.qs[i] }
func (h *psHeap) Push(x any)    { h.qs = append(h.qs, x.(*queueModel)) }
func (h *psHeap) Pop() any {
	q := h.qs[len(h.qs)-1]
	h.qs = h.qs[:len(h.qs)-1]
	return q
}
