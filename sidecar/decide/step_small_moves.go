package decide

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// SuggestedMinMovePoints is the floor the example config suggests
// (rate.min_move_points; off unless set). Measured (BENCHMARKS.md, "the
// small moves step"; three run seeds per cluster): on the tuning and
// held-out generated clusters it takes about 6% off the reversals per
// queue-hour with harm and gains within noise, and on hetero-100 the
// worst queue's reversals from 7.49 to 6.55 an hour with the same gain.
// Off by default: so little is measured for it, and the first plans on
// small clusters (lee-gpu's, which the CLI tests and the demo show) are
// moves of a few points that it would hold back.
const SuggestedMinMovePoints = 5.0

// smallMovesStep keeps a capacity or maximum-capacity at its live value
// when the plan would move it by less than MinMove points of the parent
// (issue 32 item 4, no flapping). The plan follows each cycle's demand, so
// a queue's share jitters by a few points from one write to the next, and
// each jitter against the last one is a reversal the RM pays for with a
// tree re-initialisation: on tuning cluster 10 most of the worst queue's
// 8.6 reversals per hour were weights of a few points moving back and
// forth two minutes apart, in partitions where the queue had no demand.
//
// A move passes whatever its size when it serves a promise (the queue or
// one below it is urgent, restored, or has goal jobs that need
// containers: promised), when it is a cut that pays for a sibling's
// promise, or when it returns the value to the admin's. A held child's
// siblings have their moves shrunk in proportion, so the group keeps its
// sum (keepLive); a shrunk move that falls under MinMove is held on the
// next pass.
type smallMovesStep struct {
	Seen map[string]SeenValue
	// MinMove in points of the parent (0 or negative: the step is off).
	MinMove float64
}

func (smallMovesStep) Name() string { return "small moves" }

func (st smallMovesStep) Run(s *decideState) error {
	floor := st.MinMove
	if floor <= 0 || len(s.Targets) == 0 {
		return nil
	}
	held := 0
	// Capacities, per sibling group and partition, until no move is left
	// under the floor (each pass holds at least one more child or stops).
	groups := map[string]map[string]bool{} // parent path → partitions
	for path, t := range s.Targets {
		q := s.Tree.ByPath[path]
		if q == nil || q.Parent == nil {
			continue
		}
		for p := range t.Capacity {
			if groups[q.Parent.Path] == nil {
				groups[q.Parent.Path] = map[string]bool{}
			}
			groups[q.Parent.Path][p] = true
		}
	}
	for _, parentPath := range slices.Sorted(maps.Keys(groups)) {
		parent := s.Tree.ByPath[parentPath]
		for _, p := range slices.Sorted(maps.Keys(groups[parentPath])) {
			for pass := 0; pass <= len(parent.Children); pass++ {
				small := func(ch *schedconf.Queue, live, want float64) bool {
					return st.small(s, ch, live, want, floor, st.adminShare(ch.Path, p, live))
				}
				n := 0
				for _, ch := range parent.Children {
					if want, ok := s.Targets[ch.Path].Capacity[p]; ok && small(ch, ch.ShareOfParent(p), want) && math.Abs(want-ch.ShareOfParent(p)) > reversalEpsilon {
						n++
					}
				}
				if n == 0 {
					break
				}
				held += n
				keepLive(s, parent, p, small)
			}
		}
	}
	// Maximum-capacities: no sum to keep.
	for _, path := range slices.Sorted(maps.Keys(s.Targets)) {
		q := s.Tree.ByPath[path]
		t := s.Targets[path]
		if q == nil || q.Parent == nil || len(t.MaxCapacity) == 0 {
			continue
		}
		for _, p := range slices.Sorted(maps.Keys(t.MaxCapacity)) {
			live := plan.MaxPercentOf(q, p)
			admin := adminCeiling(path, p, live, st.Seen)
			if want := t.MaxCapacity[p]; math.Abs(want-live) > reversalEpsilon && st.small(s, q, live, want, floor, admin) {
				t.MaxCapacity = maps.Clone(t.MaxCapacity)
				t.MaxCapacity[p] = live
				s.Targets[path] = t
				held++
			}
		}
	}
	if held > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("small moves: %d capacity moves under %.0f points of the parent kept their live values", held, floor))
	}
	return nil
}

// small: moving one of q's values from live to want is under the floor
// and serves no promise and no return to the admin's value.
func (st smallMovesStep) small(s *decideState, q *schedconf.Queue, live, want, floor, admin float64) bool {
	if math.Abs(want-live) >= floor || math.Abs(want-admin) <= reversalEpsilon || promisedUnder(s, q) {
		return false
	}
	// A cut that pays for a sibling's promise passes with it.
	if want < live && q.Parent != nil {
		for _, sib := range q.Parent.Children {
			if sib != q && promisedUnder(s, sib) {
				return false
			}
		}
	}
	return true
}

// promisedUnder: q or a queue below it is promised (a parent's raise
// carries its leaf's).
func promisedUnder(s *decideState, q *schedconf.Queue) bool {
	if promised(s, q.Path) {
		return true
	}
	for _, ch := range q.Children {
		if promisedUnder(s, ch) {
			return true
		}
	}
	return false
}

func (st smallMovesStep) adminShare(queue, partition string, live float64) float64 {
	return adminShareOf(st.Seen, queue, partition, live)
}
