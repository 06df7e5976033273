package decide

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// The replay strategy's calibration lend (issue 32 item 2: calibration
// risks a bounded sample). The replay routes a leaf only to a partition
// where each of its classes was measured (unmeasuredRoutes). An exclusive
// partition no leaf is homed on runs nothing under the admin's
// configuration, so nothing is ever measured there and its nodes stay idle.
// The lend moves one node of such a partition to the default partition
// (replace-labels-on-node with no label), where the default partition's
// jobs run on it and are measured on its node type; when every class of
// the window is measured there, when a class is measured slower there than
// on every other node of the default partition, after DefaultLendFor at
// most, when the default partition has had room of its own for lendRoomFor, when the
// partition gets work of its own, or when the replay routes a leaf there,
// the node goes back; the partition is lent again an hour later at the
// earliest, and only while some class is still unmeasured there and none
// was measured slower there. The exposure is one node, and it is capacity the
// partition left idle: the default partition gains a node, no queue loses
// a guarantee. A class slower on that node type than elsewhere can still
// have tasks placed there while it is lent.
//
// Measured (go run ./testenv/bench -only heldout [-heldout-tuning
// -heldout-n 60] -heldout-runs 3 -heldout-strategy replay -heldout-labels):
// tuning 1–60, 0/60 clusters with a class >5% slower than stock, 3/60
// >2%, 0.792× stock, 1.116× the best static, against 0/60, 2/60, 0.802×,
// 1.145× without the lend (tuning 36: 0.74→0.40× stock, 41: 1.00→0.74×);
// held-out 1001–1030, 4/30, 4/30, 0.806×, 1.134× against 3/30, 3/30,
// 0.810×, 1.141× (1019 1.07× with it). Hence two opt-ins.
//
// It runs only where the admin allows node-label changes
// (safety.allow_node_label_changes). The node type must not depend on the
// label (node_types rules by host pattern or GPUs, not by label), or what
// is measured on the lent node counts for another type.
const (
	// DefaultLendFor is the longest a node stays lent.
	DefaultLendFor = time.Hour
	// lendWriteWait is how long a lend written but not seen in the
	// snapshot is waited for before it counts as failed.
	lendWriteWait = 2 * time.Minute
	// lendRoomFor is how long the default partition may have room of its
	// own before a lent node goes back: a backlog comes and goes by the
	// minute, and a lend ended by every lull measures nothing (tuning
	// cluster 41: four lends of 2–6 minutes, no class measured).
	lendRoomFor = 10 * time.Minute
)

// ReplayLend is the lend under way and when each partition's last lend
// ended.
type ReplayLend struct {
	Node, Partition, Type string
	Since                 time.Time
	// Out: the node was seen in the default partition.
	Out bool
	// RoomSince is when the default partition last stopped having a
	// backlog while the node is lent (zero: it has one).
	RoomSince time.Time
	Done      map[string]time.Time
}

type replayLendStep struct {
	Enabled bool
	Jobs    func() []calibrate.JobRecord
	Window  time.Duration
	For     time.Duration
	Lend    *ReplayLend
	// Held is the replay's choice: a route to the lent node's partition
	// brings the node back, and a lend that ended runs the replay again.
	Held  *replayChoice
	Every time.Duration
	// TypeOf is the classifier's node type; a node whose type would change
	// with its label is not lent (what it measured would count for
	// another type).
	TypeOf func(cluster.Node) string
}

func (replayLendStep) Name() string { return "replay lend" }

func (st replayLendStep) Run(s *decideState) error {
	if !st.Enabled || st.Lend == nil {
		return nil
	}
	now := s.Snap.Time
	window, lendFor := st.Window, st.For
	if window <= 0 {
		window = DefaultReplayWindow
	}
	if lendFor <= 0 {
		lendFor = DefaultLendFor
	}
	l := st.Lend
	if l.Done == nil {
		l.Done = map[string]time.Time{}
	}
	var recs []calibrate.JobRecord
	if st.Jobs != nil {
		recs = st.Jobs()
	}
	jobs := replayJobs(s.Tree, recs, now.Add(-window), now, replayRate(s.Rates, s.Parts))
	classes := map[string]bool{}
	for _, j := range jobs {
		classes[j.Class] = true
	}
	unmeasuredOn := func(typ string) []string {
		var out []string
		for c := range classes {
			if _, ok := measuredRate(s.Rates, c, typ); !ok {
				out = append(out, c)
			}
		}
		slices.Sort(out)
		return out
	}
	if l.Node != "" {
		var cur string
		present := false
		for _, n := range s.Snap.Nodes {
			if n.ID == l.Node {
				cur, present = n.Partition, true
			}
		}
		if cur == "" && present {
			l.Out = true
		}
		if !present || cur == l.Partition && (l.Out || now.Sub(l.Since) > lendWriteWait) {
			// Back, gone, or never lent (the write failed): over, and the
			// partition is not lent again within lendFor.
			l.Done[l.Partition] = now
			*l = ReplayLend{Done: l.Done}
			return nil
		}
		if cur == l.Partition {
			return nil // the lend's write not seen yet
		}
		if defaultBacklogged(s, l.Node) {
			l.RoomSince = time.Time{}
		} else if l.RoomSince.IsZero() {
			l.RoomSince = now
		}
		var why string
		switch left, slower := unmeasuredOn(l.Type), slowerOnLent(s, classes, l.Type, l.Node); {
		case slower != "":
			why = slower
		case len(left) == 0:
			why = fmt.Sprintf("every class of the window measured on %s", l.Type)
		case now.Sub(l.Since) >= lendFor:
			why = fmt.Sprintf("lent for %s (unmeasured still: %s)", lendFor, strings.Join(left, ", "))
		case !l.RoomSince.IsZero() && now.Sub(l.RoomSince) >= lendRoomFor:
			why = fmt.Sprintf("the default partition has had room of its own for %s: a task on the lent node would only risk a slower type", lendRoomFor)
		case !idlePartition(s, l.Partition):
			why = fmt.Sprintf("partition %s has work of its own", l.Partition)
		case st.Held != nil && st.Held.cand != nil && st.Held.cand.Partition == l.Partition:
			why = fmt.Sprintf("the replay routes %s there", strings.Join(st.Held.cand.Routed, ", "))
		default:
			s.Notes = append(s.Notes, fmt.Sprintf("calibration lend: node %s (%s) of %s in the default partition since %s; unmeasured there: %s",
				l.Node, l.Type, l.Partition, l.Since.Format(time.TimeOnly), strings.Join(unmeasuredOn(l.Type), ", ")))
			return nil
		}
		s.Lend = act.LabelChange{Lend: true, Nodes: map[string]string{l.Node: l.Partition}, Time: now,
			Reasons: []string{fmt.Sprintf("calibration lend over: node %s back to %s (%s)", l.Node, l.Partition, why)}}
		s.Notes = append(s.Notes, s.Lend.Reasons[0])
		// The replay runs again next cycle on what the lend measured.
		if st.Held != nil && len(unmeasuredOn(l.Type)) < len(classes) {
			every := st.Every
			if every <= 0 {
				every = DefaultReplayEvery
			}
			st.Held.at = now.Add(-every)
		}
		return nil
	}
	if len(jobs) < replayMinJobs || !defaultBacklogged(s, "") {
		return nil
	}
	for _, p := range s.Snap.Partitions {
		if p.Name == "" || !p.Exclusive || !idlePartition(s, p.Name) {
			continue
		}
		if at, ok := l.Done[p.Name]; ok && now.Sub(at) < lendFor {
			continue
		}
		var running []string
		same := map[string]bool{} // its type does not change with the label
		for _, n := range s.Snap.Nodes {
			if n.Partition == p.Name && n.Usable() {
				running = append(running, n.ID)
				out := n
				out.Partition = ""
				same[n.ID] = st.TypeOf != nil && st.TypeOf(out) == s.Types[n.ID]
			}
		}
		if len(running) < 2 {
			continue // a partition is never emptied
		}
		slices.Sort(running)
		for _, id := range running {
			typ := s.Types[id]
			left := unmeasuredOn(typ)
			// A type some class was measured slower on is not lent again.
			if typ == "" || len(left) == 0 || !same[id] || slowerOnLent(s, classes, typ, "") != "" {
				continue
			}
			*l = ReplayLend{Node: id, Partition: p.Name, Type: typ, Since: now, Done: l.Done}
			s.Lend = act.LabelChange{Lend: true, Nodes: map[string]string{id: ""}, Time: now,
				// Exposure: the lent node's containers of the slot size.
				Calibrations: []plan.CalibrationExposure{{Partition: p.Name, Containers: s.Snap.NodeByID()[id].Total.Fits(s.Slot)}},
				Reasons: []string{fmt.Sprintf("calibration lend: node %s (%s) of %s, an exclusive partition no queue is homed on and nothing runs in, to the default partition for at most %s, until %s are measured there",
					id, typ, p.Name, lendFor, strings.Join(left, ", "))}}
			s.Notes = append(s.Notes, s.Lend.Reasons[0])
			return nil
		}
	}
	return nil
}

// slowerOnLent names a class measured slower on the lent node's type than
// on every other node type of the default partition: while lent, the node
// only slows it, so the lend ends with the first such measurement.
func slowerOnLent(s *decideState, classes map[string]bool, typ, lent string) string {
	others := map[string]bool{}
	for _, n := range s.Snap.Nodes {
		if n.Partition == "" && n.ID != lent && s.Types[n.ID] != typ {
			others[s.Types[n.ID]] = true
		}
	}
	for _, c := range slices.Sorted(maps.Keys(classes)) {
		r, ok := measuredRate(s.Rates, c, typ)
		if !ok {
			continue
		}
		slowest := math.Inf(1)
		for o := range others {
			if ro, ok := measuredRate(s.Rates, c, o); ok {
				slowest = math.Min(slowest, ro)
			}
		}
		if r < slowest*0.98 {
			return fmt.Sprintf("class %s measured %.2f× on %s, slower than on any other node of the default partition (%.2f×)", c, r, typ, slowest)
		}
	}
	return ""
}

// defaultBacklogged: the default partition's leaves have pending requests
// and its nodes (but the one lent, when named) have less than a node's
// memory free. Only then does a lent node add capacity that work would
// otherwise wait for; with room free, a task placed on a node type slower
// for its class only comes later (tuning clusters 14, 17 and 26 at loads
// 0.2–0.5: a class slower on GPU hosts up to 1.09× slower than stock with
// an unconditional lend).
func defaultBacklogged(s *decideState, lent string) bool {
	pending := false
	for _, q := range s.Snap.Queues {
		if c, ok := q.ByPartition[""]; q.Leaf && ok && c.Pending.MemoryMB > 0 {
			pending = true
		}
	}
	if !pending {
		return false
	}
	var free, node int64
	for _, n := range s.Snap.Nodes {
		if n.Partition != "" || !n.Usable() {
			continue
		}
		node = max(node, n.Total.MemoryMB)
		if n.ID != lent {
			free += n.Total.MemoryMB - n.Used.MemoryMB
		}
	}
	return free < node
}

// idlePartition: no leaf is homed on p and nothing runs in it.
func idlePartition(s *decideState, p string) bool {
	for _, q := range s.Tree.Leaves() {
		if q.DefaultLabelExpression == p {
			return false
		}
	}
	for _, q := range s.Tree.Leaves() {
		if t, ok := s.Targets[q.Path]; ok && t.DefaultLabelExpression != nil && *t.DefaultLabelExpression == p {
			return false
		}
	}
	for _, n := range s.Snap.Nodes {
		if n.Partition == p && (n.NumContainers > 0 || n.Used.MemoryMB > 0) {
			return false
		}
	}
	return true
}
