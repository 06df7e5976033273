package decide

import (
	"fmt"
	"math"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// slotsStep counts each partition's planning slots per node type.
type slotsStep struct{}

func (slotsStep) Name() string { return "slots" }

func (slotsStep) Run(s *decideState) error {
	byID := s.Snap.NodeByID()
	s.Parts = nil
	for _, p := range s.Snap.Partitions {
		ps := progress.PartitionSlots{Name: p.Name, Exclusive: p.Exclusive, Slots: map[string]int64{}}
		for _, id := range p.NodeIDs {
			if n, ok := byID[id]; ok {
				ps.Slots[s.Types[n.ID]] += n.Total.Fits(s.Slot)
			}
		}
		s.Parts = append(s.Parts, ps)
	}
	return nil
}

// ratesStep exposes the calibration table's CR ratios to the planner —
// effective rates (effective.go: the cost of reading each class's input
// where it would run) when ReadCost is set.
type ratesStep struct{ ReadCost func() *ReadCost }

func (ratesStep) Name() string { return "rates" }

func (st ratesStep) Run(s *decideState) error {
	s.Rates = tableRates{s.Table}
	if st.ReadCost != nil && s.Table != nil {
		if rc := st.ReadCost(); rc != nil {
			var notes []string
			s.Rates, notes = EffectiveRates(s.Rates, s.Table.Reference, rateLocality(rc.Inputs, s.Snap, s.Types, s.ClassOf), *rc)
			s.Notes = append(s.Notes, notes...)
		}
	}
	if s.Table == nil || len(s.Table.Classes()) == 0 {
		s.Notes = append(s.Notes, "no calibration history yet: every rate is taken as 1 (uncalibrated) until finished maps are ingested")
	}
	return nil
}

// demandStep turns every steerable leaf into a planner queue: weight,
// demand in slots, job-class mix, home partition. Weights are hierarchical
// (see hierarchicalWeights); leaves the plan must leave alone — unlisted
// when Queues is set, under a parent that creates its leaves itself — are
// skipped with a note.
type demandStep struct {
	Queues map[string]QueueWeight
	// Seen is each queue's first-seen capacity (the admin's intent): the
	// weight of a leaf without a configured one is its first-seen
	// default-partition absolute capacity, so the sidecar's own changes
	// never feed back into its weights.
	Seen map[string]SeenValue
}

func (demandStep) Name() string { return "demand" }

func (d demandStep) Run(s *decideState) error {
	apps := map[string][]cluster.App{}
	for _, a := range s.Snap.RunningApps() {
		apps[a.Queue] = append(apps[a.Queue], a)
	}
	// Listing leaves restricts steering to them; listing only parents (for
	// their guarantee bands) does not.
	restrict := false
	for path := range d.Queues {
		if q, ok := s.Tree.ByPath[path]; ok && q.IsLeaf() {
			restrict = true
		}
	}
	queueOf := s.Snap.QueueIndex()
	for _, leaf := range s.Tree.Leaves() {
		qc, listed := d.Queues[leaf.Path]
		if restrict && !listed {
			continue
		}
		if autoCreates(s.Live, leaf.Path) {
			s.Notes = append(s.Notes, fmt.Sprintf("queue %s creates its leaf queues itself (auto-created queues); they are observed and reported, its capacity and template are left as is", leaf.Path))
			continue
		}
		w := qc.Weight
		if w == 0 {
			w = 0.01
			if v, ok := d.Seen[SeenKey(leaf.Path, "")]; ok {
				w = math.Max(v.AbsShare, 0.01)
			} else {
				w = math.Max(leaf.AbsCapacity[""], 0.01)
			}
		}
		qd := progress.QueueDemand{Path: leaf.Path, Weight: w, Home: leaf.DefaultLabelExpression, Pinned: qc.Pinned,
			Mix: map[string]float64{}}
		qd.Accessible = append(qd.Accessible, leaf.AccessibleLabels...)
		if sq, ok := queueOf(leaf.Path); ok {
			var mem int64
			for _, c := range sq.ByPartition {
				mem += c.Used.MemoryMB + c.Pending.MemoryMB
			}
			qd.Demand = mem / s.Slot.MemoryMB
		}
		for _, a := range apps[leaf.Path] {
			weight := 1.0
			if a.Job != nil {
				weight = math.Max(1, float64(a.Job.MapsTotal-a.Job.MapsCompleted))
			}
			qd.Mix[s.ClassOf(a)] += weight
		}
		s.Queues = append(s.Queues, qd)
	}
	hierarchicalWeights(s.Tree, s.Queues)
	dynamicLeaves(s)
	return nil
}

// hierarchicalWeights makes flat planner weights divide like the Capacity
// Scheduler's tree (eq. 4.1 fairness per parent, recursively): below root,
// a parent's share goes to its children with demand, so an idle leaf's
// weight passes to its busy siblings before it reaches other subtrees.
// Each busy leaf's weight is scaled by Π over its non-root ancestors of
// (their subtree weight / the busy children's weight). Root's own children
// keep their weights (the planner normalises over busy queues), so a flat
// tree plans exactly as before.
func hierarchicalWeights(tree *schedconf.Tree, qs []progress.QueueDemand) {
	weight := map[string]float64{}
	busy := map[string]bool{}
	for _, q := range qs {
		for p := q.Path; p != ""; p = parentOf(p) {
			weight[p] += q.Weight
			if q.Demand > 0 {
				busy[p] = true
			}
		}
	}
	for i := range qs {
		if qs[i].Demand == 0 {
			continue
		}
		f := 1.0
		for p := parentOf(qs[i].Path); p != "" && p != "root"; p = parentOf(p) {
			parent := tree.ByPath[p]
			if parent == nil {
				continue
			}
			busyW := 0.0
			for _, c := range parent.Children {
				if busy[c.Path] {
					busyW += weight[c.Path]
				}
			}
			if busyW > 0 {
				f *= weight[p] / busyW
			}
		}
		qs[i].Weight *= f
	}
}

func parentOf(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '.' {
			return path[:i]
		}
	}
	return ""
}

// autoCreates reports whether a queue creates its leaves itself (legacy
// auto-create-child-queue or the flexible auto-queue-creation-v2).
func autoCreates(live schedconf.Conf, path string) bool {
	return live[schedconf.Key(path, "auto-create-child-queue.enabled")] == "true" ||
		live[schedconf.Key(path, "auto-queue-creation-v2.enabled")] == "true"
}

// dynamicLeaves notes leaf queues the RM reports that the configuration
// does not list (auto-created): observed and reported, never written.
func dynamicLeaves(s *decideState) {
	var apps map[string]int // running apps per queue, counted once (not per leaf)
	for _, q := range s.Snap.LeafQueues() {
		if _, ok := s.Tree.ByPath[q.Path]; ok {
			continue
		}
		if apps == nil {
			apps = map[string]int{}
			for _, a := range s.Snap.RunningApps() {
				apps[a.Queue]++
			}
		}
		s.Notes = append(s.Notes, fmt.Sprintf("queue %s was created by the RM (not in the configuration; %d running apps): observed, left as is", q.Path, apps[q.Path]))
	}
}

// deadlineStep runs the deadline report and weighs queues with jobs at
// risk more in the PS-fair plan (Polo: jobs at risk get capacity first,
// comfortable ones lend).
type deadlineStep struct {
	Models func() map[string]deadline.PhaseModel
	// Residuals calibrate the models' finish predictions (nil: the models'
	// own spread).
	Residuals func() *deadline.Residuals
	// Outlooks are Spark apps' remaining work (nil: none).
	Outlooks   func() map[string]deadline.Outlook
	SLOs       map[string]time.Duration
	Confidence float64
	Samples    int
}

func (deadlineStep) Name() string { return "deadline weighting" }

func (d deadlineStep) Run(s *decideState) error {
	var models map[string]deadline.PhaseModel
	if d.Models != nil {
		models = d.Models()
	}
	var res *deadline.Residuals
	if d.Residuals != nil {
		res = d.Residuals()
	}
	var outlooks map[string]deadline.Outlook
	if d.Outlooks != nil {
		outlooks = d.Outlooks()
	}
	s.Deadlines = deadline.Report(s.Snap, models, deadline.ReportOptions{ClassOf: s.ClassOf, SLOs: d.SLOs, Confidence: d.Confidence,
		Samples: d.Samples, Seed: uint64(s.Snap.Time.Unix()), Residuals: res, Outlooks: outlooks,
		// Running reduces at their node type's fit (deadline.ReduceKinds):
		// a reduce on a GPU node runs train's reduce phase 4x faster.
		NodeTypeOf: calibrate.AddressTypeOf(s.Snap.Nodes, s.Types),
		QueueMax:   queueMaxContainers(s)})
	atRisk := map[string]int{}
	for _, qr := range s.Deadlines {
		atRisk[qr.Queue] = qr.AtRisk
	}
	for i := range s.Queues {
		if n := atRisk[s.Queues[i].Path]; n > 0 {
			s.Queues[i].Weight *= 1 + float64(n)
		}
	}
	return nil
}

// queueMaxContainers is, per leaf queue, the containers its maximum
// capacity holds in its home partition (the deadline report's QueueMax:
// "cannot meet even with the whole queue"); 0 for an unknown queue.
func queueMaxContainers(s *decideState) func(queue string) int {
	slots := partitionTotals(s.Parts)
	return func(q string) int {
		leaf, ok := s.Tree.ByPath[q]
		if !ok {
			return 0
		}
		p := leaf.DefaultLabelExpression
		return int(leaf.AbsMaxCapacity[p] * slots[p])
	}
}
