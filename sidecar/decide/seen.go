package decide

import (
	"sync"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// SeenValue is one queue's configured capacity in one partition when first
// seen: the raw value, its share of the parent (percent), and the share of
// the whole partition (0..1).
type SeenValue struct {
	Raw      string  `json:"raw"`
	Mode     string  `json:"mode"`
	Share    float64 `json:"shareOfParentPct"`
	AbsShare float64 `json:"absShare"`
	// Unset: the admin configured no capacity for the queue in this
	// partition (it existed without one, or the sidecar created it). There
	// is no promise to keep there: the band is open, bounded by the
	// siblings' bands only — and a value the sidecar writes later is never
	// taken for the admin's.
	Unset bool `json:"unset,omitempty"`
	// Home is the queue's default-node-label-expression when first seen,
	// kept on its default-partition entry (nil: recorded before homes
	// were, or another partition's entry).
	Home *string `json:"home,omitempty"`
	// MaxShare is the queue's maximum-capacity in the partition when first
	// seen (percent of the parent; 100 when the admin set none), the
	// ceiling the sidecar keeps unless safety.raise_maximum_capacity
	// (step_ceilings.go). Nil: recorded before ceilings were, or not in
	// percentage mode.
	MaxShare *float64 `json:"maxCapacityPct,omitempty"`
}

// SeenKey is the key of a queue's first-seen value in a partition.
func SeenKey(queue, partition string) string { return queue + "\x00" + partition }

// SeenStore holds each queue's capacities when the sidecar first saw them
// (the admin's intent). The plumbing's sidecar.FirstSeen persists them to
// a file; the decision only observes the live tree through it and asks it
// to save, so the file I/O stays outside this room.
type SeenStore interface {
	// Observe records the capacities of queues with no first value yet
	// and returns the first values of all queues (SeenKey → value).
	Observe(tree *schedconf.Tree) (map[string]SeenValue, error)
	// Save persists what Observe recorded (nothing for a store in memory).
	Save() error
}

// RecordSeen adds to seen, under SeenKey, every queue's current capacities
// that have no first value yet; it reports whether it added any. It is the
// whole of observing: SeenStores differ only in where seen is kept.
func RecordSeen(seen map[string]SeenValue, tree *schedconf.Tree) (added bool) {
	for _, q := range tree.ByPath {
		if q.Parent == nil {
			continue
		}
		for _, p := range tree.Labels {
			k := SeenKey(q.Path, p)
			if _, ok := seen[k]; ok {
				continue
			}
			v, ok := q.Capacity[p]
			if !ok {
				if p != "" {
					seen[k] = SeenValue{Unset: true}
					added = true
				}
				continue
			}
			sv := SeenValue{Raw: v.Raw, Mode: string(v.Mode), Share: q.ShareOfParent(p), AbsShare: q.AbsCapacity[p]}
			if m, ok := q.MaxCapacity[p]; !ok || m.Mode == schedconf.ModePercentage {
				ceiling := plan.MaxPercentOf(q, p)
				sv.MaxShare = &ceiling
			}
			if p == "" {
				home := q.DefaultLabelExpression
				sv.Home = &home
			}
			seen[k] = sv
			added = true
		}
	}
	return added
}

// MemorySeen is a SeenStore kept in memory for the decider's lifetime
// (what PSDecider uses when FirstSeen is nil: tests, the simulator).
type MemorySeen struct {
	mu   sync.Mutex
	seen map[string]SeenValue
}

// Observe implements SeenStore.
func (m *MemorySeen) Observe(tree *schedconf.Tree) (map[string]SeenValue, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen == nil {
		m.seen = map[string]SeenValue{}
	}
	RecordSeen(m.seen, tree)
	out := make(map[string]SeenValue, len(m.seen))
	for k, v := range m.seen {
		out[k] = v
	}
	return out, nil
}

// Save implements SeenStore: there is nowhere to write.
func (*MemorySeen) Save() error { return nil }
