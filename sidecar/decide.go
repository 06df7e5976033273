package sidecar

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// PSDecider is the decision step: PS of the running jobs (eq. 4.1) and the
// PS-fair capacity plan (progress.Plan), turned into queue targets. It does
// no I/O; Table supplies the latest CR table.
type PSDecider struct {
	Table      func() *calibrate.Table
	Classifier calibrate.Classifier
	ClassKey   calibrate.ClassKey
	// Queues restricts steering to these leaves (weights, pinned); empty =
	// every leaf, weighted by its current default-partition capacity.
	Queues map[string]QueueConfig
	// Slot is the container size of a planning slot (default 2048 MB, 1 vcore).
	Slot cluster.Resource
	// Models are the deadline models per class; SLOs the per-class goals.
	Models     func() map[string]deadline.PhaseModel
	SLOs       map[string]time.Duration
	Confidence float64
	Samples    int
	// Priorities lets the decision raise at-risk jobs' app priority.
	Priorities bool
	// KeepRackLocalityReset leaves yarn.scheduler.capacity.rack-locality-full-reset
	// alone even when queues are routed to labelled partitions.
	KeepRackLocalityReset bool
	// ReadCost, when set, gives the effective-rate step (effective.go) the
	// cycle's block maps, processing times and bandwidths.
	ReadCost func() *ReadCost

	// baseline holds the weights of queues not in Queues: their
	// default-partition capacity when the sidecar first saw them (the
	// admin's intent), kept for the process lifetime so the sidecar's own
	// changes never feed back into its weights.
	baseline map[string]float64
}

type tableRates struct{ t *calibrate.Table }

func (r tableRates) Rate(class, typ string) (float64, bool) {
	if r.t == nil {
		return 0, false
	}
	return r.t.Ratio(class, typ)
}

// Decide implements Decider.
func (d *PSDecider) Decide(snap cluster.Snapshot, live schedconf.Conf) (Decision, error) {
	tree, err := schedconf.ParseTree(live)
	if err != nil {
		return Decision{}, fmt.Errorf("parse live configuration: %w", err)
	}
	slot := d.Slot
	if slot.IsZero() {
		slot = cluster.Resource{MemoryMB: 2048, VCores: 1}
	}
	var table *calibrate.Table
	if d.Table != nil {
		table = d.Table()
	}
	var rates progress.Rates = tableRates{table}
	types := d.Classifier.Types(snap.Nodes)
	classOf := d.ClassKey.ClassOf
	var rateNotes []string
	if rc := d.readCost(); rc != nil && table != nil {
		rates, rateNotes = EffectiveRates(rates, table.Reference, ClassLocality(snap, types, classOf, rc.Inputs), *rc)
	}

	// Partitions and their slots per node type.
	var parts []progress.PartitionSlots
	for _, p := range snap.Partitions {
		ps := progress.PartitionSlots{Name: p.Name, Exclusive: p.Exclusive, Slots: map[string]int64{}}
		for _, id := range p.NodeIDs {
			for _, n := range snap.Nodes {
				if n.ID == id {
					ps.Slots[types[n.ID]] += n.Total.Fits(slot)
				}
			}
		}
		parts = append(parts, ps)
	}

	// Leaf queues: weight, demand, job-class mix, home.
	appsByQueue := map[string][]cluster.App{}
	for _, a := range snap.RunningApps() {
		appsByQueue[a.Queue] = append(appsByQueue[a.Queue], a)
	}
	var queues []progress.QueueDemand
	notes := rateNotes
	for _, leaf := range tree.Leaves() {
		qc, listed := d.Queues[leaf.Path]
		if len(d.Queues) > 0 && !listed {
			continue
		}
		if leaf.Parent == nil || leaf.Parent.Path != "root" {
			notes = append(notes, fmt.Sprintf("queue %s is nested; this version plans children of root only, it is left as is", leaf.Path))
			continue
		}
		w := qc.Weight
		if w == 0 {
			if d.baseline == nil {
				d.baseline = map[string]float64{}
			}
			if _, seen := d.baseline[leaf.Path]; !seen {
				d.baseline[leaf.Path] = math.Max(leaf.AbsCapacity[""], 0.01)
			}
			w = d.baseline[leaf.Path]
		}
		qd := progress.QueueDemand{Path: leaf.Path, Weight: w, Home: leaf.DefaultLabelExpression, Pinned: qc.Pinned,
			Mix: map[string]float64{}}
		for _, l := range leaf.AccessibleLabels {
			qd.Accessible = append(qd.Accessible, l)
		}
		if sq, ok := snap.Queue(leaf.Path); ok {
			var mem int64
			for _, c := range sq.ByPartition {
				mem += c.Used.MemoryMB + c.Pending.MemoryMB
			}
			qd.Demand = mem / slot.MemoryMB
		}
		for _, a := range appsByQueue[leaf.Path] {
			weight := 1.0
			if a.Job != nil {
				weight = math.Max(1, float64(a.Job.MapsTotal-a.Job.MapsCompleted))
			}
			qd.Mix[classOf(a)] += weight
		}
		queues = append(queues, qd)
	}
	// Deadlines first: queues with jobs at risk weigh more in the PS-fair
	// plan (Polo: jobs at risk get capacity first, comfortable ones lend).
	reports := d.deadlines(snap, tree, parts, classOf)
	atRisk := map[string]int{}
	for _, qr := range reports {
		atRisk[qr.Queue] = qr.AtRisk
	}
	for i := range queues {
		if n := atRisk[queues[i].Path]; n > 0 {
			queues[i].Weight *= 1 + float64(n)
		}
	}
	plan := progress.Plan(progress.PlanInput{Partitions: parts, Queues: queues, Rates: rates})

	dec := Decision{Targets: map[string]QueueTarget{}, Notes: notes, Deadlines: reports,
		Predicted: map[string]float64{"sum_ps": plan.SumPS, "sum_ps_bound": plan.Bound, "min_ps_over_fair": plan.MinPS}}
	// Labelled partitions on heterogeneous clusters are mostly compute-only
	// accelerator nodes (Lee §4.2): no DataNode, so every map there is at
	// best rack-local, and with rack-locality-full-reset (default true)
	// each container waits node-locality-delay missed opportunities again —
	// a queue routed there crawls at one container per few seconds.
	routed := false
	for _, qp := range plan.Queues {
		routed = routed || qp.Home != ""
	}
	const fullReset = schedconf.Prefix + "rack-locality-full-reset"
	if routed && !d.KeepRackLocalityReset && strings.TrimSpace(live[fullReset]) != "false" {
		dec.Globals = append(dec.Globals, GlobalChange{Key: fullReset, Value: "false",
			Reason: "queues run on a labelled partition whose nodes hold little or no HDFS data: after the first rack-local container, later ones need not wait node-locality-delay again (rack-locality-full-reset=false)"})
	}
	for _, qp := range plan.Queues {
		leaf := tree.ByPath[qp.Path]
		t := QueueTarget{Capacity: map[string]float64{}, MaxCapacity: map[string]float64{}, Reason: qp.Reason}
		for p, pct := range qp.Capacity {
			if p != "" && !leaf.CanUse(p) {
				continue
			}
			t.Capacity[p] = pct
			t.MaxCapacity[p] = 100 // idle capacity stays borrowable (elasticity)
		}
		home := qp.Home
		t.DefaultLabelExpression = &home
		dec.Targets[qp.Path] = t
	}

	// What it sees now, for metrics and reports.
	sh := progress.Compute(progress.Input{Snap: snap, NodeType: types, ClassOf: classOf, Rates: rates, Slot: slot})
	dec.SumPS, dec.MinPS, dec.BoundPS = sh.Sum, sh.Min, sh.Bound
	fair := map[string]float64{}
	for _, qp := range plan.Queues {
		fair[qp.Path] = qp.FairShare
	}
	perQueue := map[string]int{}
	for _, js := range sh.Jobs {
		perQueue[js.Queue]++
	}
	jr := map[string]deadline.JobReport{}
	for _, qr := range reports {
		for _, j := range qr.Jobs {
			jr[j.AppID] = j
		}
	}
	for _, js := range sh.Jobs {
		app := findApp(snap, js.AppID)
		st := JobStatus{AppID: js.AppID, Name: app.Name, Queue: js.Queue, Class: js.Class, PS: js.PS, Containers: js.Containers,
			Progress: app.Progress / 100}
		if n := perQueue[js.Queue]; n > 0 {
			st.FairShare = fair[js.Queue] / float64(n)
		}
		if r, ok := jr[js.AppID]; ok {
			st.Deadline, st.PMeet, st.Needed, st.Verdict = r.Deadline, r.PMeet, r.Needed, r.Verdict
			if !r.P50.IsZero() {
				p50, p90 := r.P50, r.P90
				st.P50, st.P90 = &p50, &p90
			}
			for _, c := range r.CDF {
				st.CDF = append(st.CDF, CDFPoint{T: snap.Time.Add(time.Duration(c[0] * float64(time.Second))), P: c[1]})
			}
			if d.Priorities && (r.Verdict == deadline.AtRisk) && app.Priority < 10 {
				dec.Priorities = append(dec.Priorities, PriorityChange{AppID: app.ID, Queue: app.Queue, From: app.Priority, To: app.Priority + 1,
					Reason: fmt.Sprintf("job %s is at risk of missing its deadline (P(meet)=%.0f%%)", app.Name, 100*ptr(r.PMeet))})
			}
		}
		dec.Jobs = append(dec.Jobs, st)
	}
	if table != nil {
		for _, class := range table.Classes() {
			for _, typ := range table.Types(class) {
				r, _ := table.Rate(class, typ)
				dec.Rates = append(dec.Rates, RateStatus{Class: class, NodeType: typ, Ratio: r.Ratio, Low: r.Low, High: r.High, Samples: r.Samples, Known: r.Known})
			}
		}
	}
	for _, q := range snap.LeafQueues() {
		for p, c := range q.ByPartition {
			dec.Queues = append(dec.Queues, QueueStatus{Queue: q.Path, Partition: p, Capacity: c.Capacity, AbsCapacity: c.AbsoluteCapacity,
				AbsUsed: c.AbsoluteUsed})
		}
	}
	sort.Slice(dec.Queues, func(i, j int) bool {
		return dec.Queues[i].Queue+"\x00"+dec.Queues[i].Partition < dec.Queues[j].Queue+"\x00"+dec.Queues[j].Partition
	})
	if table == nil || len(table.Classes()) == 0 {
		dec.Notes = append(dec.Notes, "no calibration history yet: every rate is taken as 1 (uncalibrated) until finished maps are ingested")
	}
	return dec, nil
}

func (d *PSDecider) readCost() *ReadCost {
	if d.ReadCost == nil {
		return nil
	}
	return d.ReadCost()
}

func ptr(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// deadlines runs the deadline report on the snapshot.
func (d *PSDecider) deadlines(snap cluster.Snapshot, tree *schedconf.Tree, parts []progress.PartitionSlots, classOf func(cluster.App) string) []deadline.QueueReport {
	var models map[string]deadline.PhaseModel
	if d.Models != nil {
		models = d.Models()
	}
	slots := map[string]int64{}
	for _, p := range parts {
		for _, n := range p.Slots {
			slots[p.Name] += n
		}
	}
	return deadline.Report(snap, models, deadline.ReportOptions{ClassOf: classOf, SLOs: d.SLOs, Confidence: d.Confidence,
		Samples: d.Samples, Seed: uint64(snap.Time.Unix()),
		QueueMax: func(q string) int {
			leaf, ok := tree.ByPath[q]
			if !ok {
				return 0
			}
			p := leaf.DefaultLabelExpression
			return int(leaf.AbsMaxCapacity[p] * float64(slots[p]))
		}})
}

func findApp(s cluster.Snapshot, id string) cluster.App {
	for _, a := range s.Apps {
		if a.ID == id {
			return a
		}
	}
	return cluster.App{}
}

// FloorRule returns the safety floor: one slot's worth of each partition,
// as a percentage (USER-ASKS #8), for queues homed or holding capacity there.
func FloorRule(snap cluster.Snapshot, slot cluster.Resource, containers int) func(queue, partition string) float64 {
	totals := map[string]int64{}
	for _, p := range snap.Partitions {
		totals[p.Name] = p.Total.Fits(slot)
	}
	return func(queue, partition string) float64 {
		if totals[partition] == 0 || containers == 0 {
			return 0
		}
		q, ok := snap.Queue(queue)
		if !ok {
			return 0
		}
		if c := q.ByPartition[partition]; c.Capacity <= 0 && !strings.EqualFold(q.DefaultLabelExpression, partition) {
			return 0 // the queue does not use this partition
		}
		return math.Min(100, 100*float64(containers)/float64(totals[partition]))
	}
}
