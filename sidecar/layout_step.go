package sidecar

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/affinity"
	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// LabelsConfig is the node-label layout's part of the config file
// (safety.allow_node_label_changes turns it on in the daemon).
type LabelsConfig struct {
	// MinSpeedup: a node type gets a label when a class runs at least this
	// much faster there than on its best other type (default 1.5).
	MinSpeedup float64 `yaml:"min_speedup"`
	// MinShare: the classes that justify a label must fill at least this
	// share of the type's slots (default 0.1).
	MinShare float64 `yaml:"min_share"`
	// Exclusive makes the labels it creates exclusive (default false:
	// default-partition work may use idle labelled nodes).
	Exclusive bool `yaml:"exclusive"`
	// StableCycles: the same layout must be proposed this many cycles in a
	// row before it is applied (default 3), so one burst does not relabel
	// a cluster.
	StableCycles int `yaml:"stable_cycles"`
	// MinInterval between two label changes (default 1h).
	MinInterval time.Duration `yaml:"min_interval"`
}

// LabelLayouter is the loop's node-label step: from the snapshot and the
// calibrated rates it proposes a partition layout (affinity.PlanLayout,
// CAM's min-cost flow) and says when a proposal has been stable long
// enough to apply.
type LabelLayouter struct {
	Table      func() *calibrate.Table
	Classifier calibrate.Classifier
	ClassKey   calibrate.ClassKey
	Slot       cluster.Resource
	// Sizer, when set, reads the slot from the cluster (wins over Slot).
	Sizer  *SlotSizer
	Config LabelsConfig
	// Locality, when set, is where each class's input lives per node type
	// (from HDFS block maps); without it reads are not counted beyond what
	// the learned rates already include.
	Locality func(snap cluster.Snapshot) map[string]map[string]affinity.Locality
	// FirstSeen, shared with the decider, learns that the queues granted a
	// label the sidecar creates had no admin guarantee there.
	FirstSeen *FirstSeen

	proposal string // the last proposal's fingerprint
	stable   int
	// last is the last attempt to change the labels, whatever came of it:
	// a rolled-back or failed attempt waits MinInterval like an applied one
	// (issue 33: a real RM that ignored the label body saw the same layout
	// retried 8 cycles in a row, 4 writes each).
	last LayoutAttempt
}

// LayoutAttempt is the last label change the step tried: when, what came of
// it and, when it did not land, why.
type LayoutAttempt struct {
	Time   time.Time  `json:"time"`
	Result act.Result `json:"result"`
	Error  string     `json:"error,omitempty"`
}

// LayoutReport is what the label step saw and did in one cycle.
type LayoutReport struct {
	Layout  affinity.Layout `json:"layout"`
	Change  act.LabelChange `json:"change"`
	Stable  int             `json:"stableCycles"`
	Ready   bool            `json:"ready"`
	Result  act.Result      `json:"result,omitempty"`
	Error   string          `json:"error,omitempty"`
	Waiting string          `json:"waiting,omitempty"` // why it did not act
	// LastAttempt is the last label change tried (nil before the first).
	LastAttempt *LayoutAttempt `json:"lastAttempt,omitempty"`
	// Slot is the container the layout counted slots in, and TypeSlots
	// each node type's slots (its usable nodes' memory ÷ the slot).
	Slot      cluster.Resource `json:"slot"`
	TypeSlots map[string]int64 `json:"slotsByNodeType"`
}

// LayoutInput gathers the layout's inputs from a snapshot: each node's
// type and slots, each class's demand (running and pending containers of
// its running apps, in slots), queue and rates.
func (l *LabelLayouter) LayoutInput(snap cluster.Snapshot) ([]affinity.LayoutNode, []affinity.LayoutClass) {
	slot := decide.SlotFor(l.Sizer, l.Slot, snap)
	var nodes []affinity.LayoutNode
	types := map[string]bool{}
	for _, n := range snap.Nodes {
		if n.State != "" && n.State != "RUNNING" {
			continue
		}
		t := l.Classifier.TypeOf(n)
		types[t] = true
		nodes = append(nodes, affinity.LayoutNode{ID: n.ID, Type: t, Slots: n.Total.MemoryMB / slot.MemoryMB, Label: n.Partition})
	}
	demand := map[string]int64{}
	queue := map[string]map[string]int{}
	for _, a := range snap.Apps {
		if a.State != cluster.AppRunning && a.State != cluster.AppAccepted {
			continue
		}
		c := l.ClassKey.ClassOf(a)
		// Demand: the slots it holds plus the maps still waiting for one.
		want := a.Allocated.MemoryMB / slot.MemoryMB
		if j := a.Job; j != nil {
			want += int64(max(j.MapsTotal-j.MapsCompleted-len(j.RunningMaps), 0))
		}
		demand[c] += max(want, 1)
		if queue[c] == nil {
			queue[c] = map[string]int{}
		}
		queue[c][a.Queue]++
	}
	var loc map[string]map[string]affinity.Locality
	if l.Locality != nil {
		loc = l.Locality(snap)
	}
	var table *calibrate.Table
	if l.Table != nil {
		table = l.Table()
	}
	names := make([]string, 0, len(demand))
	for c := range demand {
		names = append(names, c)
	}
	sort.Strings(names)
	var classes []affinity.LayoutClass
	for _, c := range names {
		rates := map[string]float64{}
		if table != nil {
			for t := range types {
				if r, ok := table.Ratio(c, t); ok {
					rates[t] = r
				}
			}
		}
		classes = append(classes, affinity.LayoutClass{Name: c, Queue: mostCommon(queue[c]), Demand: demand[c], Rates: rates, Locality: loc[c]})
	}
	return nodes, classes
}

// Propose plans the layout for this snapshot and counts how many cycles in
// a row the same change has been proposed.
func (l *LabelLayouter) Propose(snap cluster.Snapshot, existing []yarn.Label) (LayoutReport, error) {
	nodes, classes := l.LayoutInput(snap)
	layout, err := affinity.PlanLayout(nodes, classes, affinity.LayoutOptions{MinSpeedup: l.Config.MinSpeedup, MinShare: l.Config.MinShare, Exclusive: l.Config.Exclusive})
	if err != nil {
		return LayoutReport{}, fmt.Errorf("node-label layout: %w", err)
	}
	ch := act.LabelChangeFrom(layout, existing)
	ch.Time = snap.Time
	rep := LayoutReport{Layout: layout, Change: ch, Slot: decide.SlotFor(l.Sizer, l.Slot, snap), TypeSlots: map[string]int64{}}
	for _, n := range nodes {
		rep.TypeSlots[n.Type] += n.Slots
	}
	fp := fingerprint(ch)
	if ch.Empty() || fp != l.proposal {
		l.proposal, l.stable = fp, 0
	}
	if !ch.Empty() {
		l.stable++
	}
	rep.Stable = l.stable
	need := l.Config.StableCycles
	if need <= 0 {
		need = 3
	}
	interval := l.interval()
	switch {
	case ch.Empty():
		rep.Waiting = "nothing to change"
	case l.stable < need:
		rep.Waiting = fmt.Sprintf("proposed %d of %d cycles in a row", l.stable, need)
	case !l.last.Time.IsZero() && snap.Time.Sub(l.last.Time) < interval:
		rep.Waiting = l.last.waiting(snap.Time, interval)
	default:
		rep.Ready = true
	}
	if !l.last.Time.IsZero() {
		last := l.last
		rep.LastAttempt = &last
	}
	return rep, nil
}

// waiting says why the step waits after an attempt at t0.
func (a LayoutAttempt) waiting(now time.Time, interval time.Duration) string {
	ago := now.Sub(a.Time).Round(time.Second)
	if a.Result == act.ResultApplied || a.Result == act.ResultDryRun {
		return fmt.Sprintf("last label change %s ago (min interval %s)", ago, interval)
	}
	return fmt.Sprintf("last label change %s %s ago, not retried before the min interval %s: %s", a.Result, ago, interval, a.Error)
}

// Attempted records a label change tried at t, whatever its result: every
// attempt, landed or not, starts MinInterval, and the layout must be
// proposed StableCycles in a row again.
func (l *LabelLayouter) Attempted(t time.Time, res act.Result, err error) {
	l.last = LayoutAttempt{Time: t, Result: res}
	if err != nil {
		l.last.Error = err.Error()
	}
	l.stable, l.proposal = 0, ""
}

// fingerprint identifies a change: the nodes to relabel and their labels.
func fingerprint(ch act.LabelChange) string {
	var parts []string
	for id, l := range ch.Nodes {
		parts = append(parts, id+"="+l)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func mostCommon(m map[string]int) string {
	best, n := "", -1
	for k, v := range m {
		if v > n || v == n && k < best {
			best, n = k, v
		}
	}
	return best
}

// layoutStep proposes a layout and, once it is stable, hands it to the
// applier (which writes nothing in dry-run and audits either way).
func (l *Loop) layoutStep(ctx context.Context, snap cluster.Snapshot, applier *act.Applier, log hclog.Logger) *LayoutReport {
	var existing []yarn.Label
	for _, p := range snap.Partitions {
		if p.Name != "" {
			existing = append(existing, yarn.Label{Name: p.Name, Exclusive: p.Exclusive})
		}
	}
	rep, err := l.Labels.Propose(snap, existing)
	if err != nil {
		log.Warn("node-label layout failed", "error", err)
		return &LayoutReport{Error: err.Error()}
	}
	if !rep.Ready {
		return &rep
	}
	if fs := l.Labels.FirstSeen; fs != nil && applier.Mode == act.ModeApply {
		for label, queues := range rep.Change.Grants {
			if err := fs.MarkUnset(label, queues); err != nil {
				log.Warn("first-seen guarantees not saved; label change skipped", "error", err)
				return &rep
			}
		}
	}
	res, err := applier.ApplyLabels(ctx, l.LabelAPI, rep.Change)
	rep.Result = res
	if err != nil {
		rep.Error = err.Error()
	}
	l.Labels.Attempted(snap.Time, res, err)
	last := l.Labels.last
	rep.LastAttempt = &last
	// The reason is logged once, by ApplyLabels ("node labels not
	// applied"); the cycles that wait after it say why in the status only
	// (rep.Waiting, LastAttempt), not in the log.
	if err != nil {
		log.Warn("node-label layout not applied; not retried before labels.min_interval", "result", res, "nodes", len(rep.Change.Nodes),
			"labels", len(rep.Change.Add), "next_attempt_after", snap.Time.Add(l.Labels.interval()))
	} else {
		log.Info("node-label layout", "result", res, "nodes", len(rep.Change.Nodes), "labels", len(rep.Change.Add))
	}
	return &rep
}

// interval is MinInterval or its default.
func (l *LabelLayouter) interval() time.Duration {
	if l.Config.MinInterval <= 0 {
		return time.Hour
	}
	return l.Config.MinInterval
}
