package sidecar

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Defaults of the reversal hold (issue 32, no flapping: the held-out set
// counted 13.7 reversals per queue per hour on its worst queue with only
// the rate limit's flap guard, which judges whole plans after the fact).
//
// DefaultReversalHold is how long a written capacity is protected against
// being moved back; DefaultReversalMinStep (points of the parent) is the
// least move back toward the admin's value that passes inside the hold —
// a smaller one is the plan's jitter, not a need.
const (
	DefaultReversalHold    = time.Hour
	DefaultReversalMinStep = 5.0
)

// capMove is the last change of one live value (a queue's capacity or
// maximum-capacity in one partition) as the decider saw it between two
// cycles — the sidecar's writes and the admin's alike.
type capMove struct {
	value float64
	sign  float64 // +1 raised, -1 lowered, 0 not seen to move yet
	at    time.Time
}

// capMoves remembers, per queue, partition and property, the live value
// and its last move. In memory only: after a restart the first cycles
// hold nothing back (the rate limit's flap guard still sees the plan).
type capMoves map[string]capMove

func capMoveKey(queue, partition, prop string) string {
	return queue + "\x00" + partition + "\x00" + prop
}

// observe notes the live tree at now: a value that changed since the last
// cycle moved, in the sign of the change.
func (m capMoves) observe(tree *schedconf.Tree, now time.Time) {
	seen := map[string]bool{}
	note := func(key string, v float64) {
		seen[key] = true
		prev, ok := m[key]
		switch {
		case !ok:
			m[key] = capMove{value: v}
		case math.Abs(v-prev.value) > reversalEpsilon:
			m[key] = capMove{value: v, sign: math.Copysign(1, v-prev.value), at: now}
		}
	}
	for _, q := range tree.ByPath {
		if q.Parent == nil {
			continue
		}
		for _, p := range tree.Labels {
			note(capMoveKey(q.Path, p, "capacity"), shareOfParent(q, p))
			note(capMoveKey(q.Path, p, "maximum-capacity"), maxPercentOf(q, p))
		}
	}
	for k := range m {
		if !seen[k] {
			delete(m, k)
		}
	}
}

// reversalEpsilon is the least difference (points) that counts as a move.
const reversalEpsilon = 0.05

// reversalHoldStep keeps a plan from moving a capacity back against its
// last change within Hold (issue 32 item 4): the metric it answers is
// testenv/experiment's reversals (a property whose change has the other
// sign than its previous one). A move back is let through when
//   - it goes toward the admin's value (FirstSeen) and either reaches it or
//     is at least MinStep points, or
//   - a queue of its sibling group serves a deadline at risk (Urgent) or is
//     given back its guarantee (Restores): the others' moves pay for that
//     raise, and a queue getting its promise back never waits.
//
// Otherwise the whole sibling group in that partition keeps its live
// capacities (they sum to 100, so one member cannot be held alone), and a
// maximum-capacity keeps its live value. The hold only moves targets to
// live values, so bands stay kept; it runs before the do-no-harm step,
// which judges what is left and only moves toward the admin's values.
type reversalHoldStep struct {
	Moves   capMoves
	Seen    map[string]SeenValue
	Hold    time.Duration // 0: DefaultReversalHold; negative: off
	MinStep float64       // 0: DefaultReversalMinStep
}

func (reversalHoldStep) Name() string { return "reversal hold" }

func (st reversalHoldStep) Run(s *decideState) error {
	hold := st.Hold
	if hold == 0 {
		hold = DefaultReversalHold
	}
	minStep := st.MinStep
	if minStep == 0 {
		minStep = DefaultReversalMinStep
	}
	if hold < 0 || len(s.Targets) == 0 || st.Moves == nil {
		return nil
	}
	now := s.Snap.Time
	// held: parent path + partition → why its group keeps live values.
	held := map[string]string{}
	var notes []string
	for _, path := range slices.Sorted(maps.Keys(s.Targets)) {
		t := s.Targets[path]
		q := s.Tree.ByPath[path]
		if q == nil || q.Parent == nil {
			continue
		}
		for _, p := range slices.Sorted(maps.Keys(t.Capacity)) {
			live := shareOfParent(q, p)
			if why := st.blocked(s, path, p, "capacity", live, t.Capacity[p], st.adminShare(path, p, live), now, hold, minStep); why != "" {
				key := q.Parent.Path + "\x00" + p
				if _, dup := held[key]; !dup {
					held[key] = why
				}
			}
		}
		for _, p := range slices.Sorted(maps.Keys(t.MaxCapacity)) {
			live := maxPercentOf(q, p)
			admin := live
			if v, ok := st.Seen[seenKey(path, p)]; ok && v.MaxShare != nil {
				admin = *v.MaxShare
			}
			if why := st.blocked(s, path, p, "maximum-capacity", live, t.MaxCapacity[p], admin, now, hold, minStep); why != "" {
				nt := s.Targets[path]
				nt.MaxCapacity = maps.Clone(nt.MaxCapacity)
				nt.MaxCapacity[p] = live
				s.Targets[path] = nt
				notes = append(notes, why)
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(held)) {
		parentPath, p, _ := strings.Cut(key, "\x00")
		parent := s.Tree.ByPath[parentPath]
		if parent == nil {
			continue
		}
		for _, ch := range parent.Children {
			t, ok := s.Targets[ch.Path]
			if !ok {
				continue
			}
			if _, ok := t.Capacity[p]; !ok {
				continue
			}
			t.Capacity = maps.Clone(t.Capacity)
			t.Capacity[p] = shareOfParent(ch, p)
			s.Targets[ch.Path] = t
		}
		notes = append(notes, fmt.Sprintf("%s; %s's children keep their %s capacities", held[key], parentPath, holdPartition(p)))
	}
	for _, n := range notes {
		s.Notes = append(s.Notes, "reversal hold: "+n)
	}
	return nil
}

// blocked says why moving one value from live to want is held back ("":
// it may move).
func (st reversalHoldStep) blocked(s *decideState, queue, partition, prop string, live, want, admin float64, now time.Time, hold time.Duration, minStep float64) string {
	d := want - live
	if math.Abs(d) <= reversalEpsilon {
		return ""
	}
	m, ok := st.Moves[capMoveKey(queue, partition, prop)]
	if !ok || m.sign == 0 || math.Copysign(1, d) == m.sign || now.Sub(m.at) >= hold {
		return ""
	}
	if raisesForAPromise(s, queue) {
		return ""
	}
	toward := math.Abs(want-admin) < math.Abs(live-admin)
	if toward && (math.Abs(want-admin) <= reversalEpsilon || math.Abs(d) >= minStep) {
		return ""
	}
	return fmt.Sprintf("%s %s %s %.1f → %.1f would undo its change %s ago (hold %s)",
		strings.TrimPrefix(queue, "root."), holdPartition(partition), prop, live, want, now.Sub(m.at).Round(time.Second), hold)
}

// raisesForAPromise: the queue or a sibling is raised for a deadline at
// risk or back toward its guarantee.
func raisesForAPromise(s *decideState, queue string) bool {
	q := s.Tree.ByPath[queue]
	group := []*schedconf.Queue{q}
	if q != nil && q.Parent != nil {
		group = q.Parent.Children
	}
	for _, g := range group {
		if g == nil {
			continue
		}
		if _, ok := s.Urgent[g.Path]; ok {
			return true
		}
		if _, ok := s.Restores[g.Path]; ok {
			return true
		}
	}
	return false
}

// adminShare is the admin's share of the parent for a queue's partition
// (FirstSeen), the live one where none was recorded.
func (st reversalHoldStep) adminShare(queue, partition string, live float64) float64 {
	if v, ok := st.Seen[seenKey(queue, partition)]; ok && !v.Unset {
		return v.Share
	}
	return live
}

// partitionName names a partition for a note ("default" for "").
func holdPartition(p string) string {
	if p == "" {
		return "default"
	}
	return p
}
