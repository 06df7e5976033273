package decide

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// GuaranteeBands are the admin's guarantees: a default band and per-queue
// ones (Config.Bands).
type GuaranteeBands struct {
	Default Guarantee
	Queues  map[string]Guarantee
}

// For returns the band of a queue.
func (b GuaranteeBands) For(queue string) Guarantee {
	if g, ok := b.Queues[queue]; ok {
		return g
	}
	return b.Default
}

// BandOfSeen is BandOf for a first-seen value; a partition where the admin
// configured no capacity for the queue has the open band [0, 100] (a
// pinned queue keeps 0 there).
func BandOfSeen(g Guarantee, seen SeenValue) plan.Band {
	if seen.Unset && !g.Pinned {
		return plan.Band{Lo: 0, Hi: 100}
	}
	return BandOf(g, seen.Share)
}

// BandOf is the band of a queue whose first-seen share of its parent was
// first (percent): [max(min×first, floor), max×first], capped at 100; a
// pinned queue's band is the first value itself. The floor never lifts
// the band above max×first.
func BandOf(g Guarantee, first float64) plan.Band {
	if g.Pinned {
		return plan.Band{Lo: first, Hi: first}
	}
	lo := float64(g.Min) * first
	hi := math.Min(100, float64(g.Max)*first)
	if g.Max == 0 {
		hi = 100
	}
	lo = math.Min(math.Max(lo, g.Floor), hi)
	return plan.Band{Lo: lo, Hi: hi}
}

// guaranteeStep keeps every target inside its queue's band: per sibling
// group and partition, targets are clamped to their bands and the
// difference is spread over the siblings with room, in proportion to
// their room, so the group's sum is unchanged. A group that cannot be
// fitted (bands too tight for the sum) keeps its current values, with a
// note. Bands are relative to the first-seen configuration (FirstSeen),
// never to the sidecar's own writes.
type guaranteeStep struct {
	Bands GuaranteeBands
	Seen  map[string]SeenValue
}

func (guaranteeStep) Name() string { return "guarantee bands" }

func (st guaranteeStep) Run(s *decideState) error {
	type groupKey struct{ parent, part string }
	groups := map[groupKey][]string{}
	for path, t := range s.Targets {
		for part := range t.Capacity {
			k := groupKey{parentOf(path), part}
			groups[k] = append(groups[k], path)
		}
	}
	keys := make([]groupKey, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].parent+"\x00"+keys[i].part < keys[j].parent+"\x00"+keys[j].part
	})
	for _, k := range keys {
		members := groups[k]
		sort.Strings(members)
		want := map[string]float64{}
		bands := map[string]plan.Band{}
		for _, q := range members {
			want[q] = s.Targets[q].Capacity[k.part]
			bands[q] = BandOfSeen(st.Bands.For(q), st.Seen[SeenKey(q, k.part)])
		}
		fitted, ok := plan.FitBands(want, bands)
		for _, q := range members {
			t := s.Targets[q]
			if t.Bands == nil {
				t.Bands = map[string]plan.Band{}
			}
			if !ok {
				delete(t.Capacity, k.part)
				delete(t.Bands, k.part)
				s.Targets[q] = t
				continue
			}
			t.Capacity[k.part] = fitted[q]
			t.Bands[k.part] = bands[q]
			s.Targets[q] = t
		}
		if !ok {
			s.Notes = append(s.Notes, fmt.Sprintf("children of %s in partition %q: their guarantee bands cannot hold the planned total; left as they are", k.parent, k.part))
		}
	}
	return nil
}

// BandViolations lists every capacity a plan writes outside its queue's
// band: the written value's share of the parent (in the desired
// configuration) against the band around the first-seen share. It is how
// tests and benchmarks check that guarantees hold for every plan.
func BandViolations(pl *plan.Plan, first map[string]SeenValue, bands GuaranteeBands) []string {
	tree, err := schedconf.ParseTree(pl.Desired)
	if err != nil {
		return []string{fmt.Sprintf("desired configuration does not parse: %v", err)}
	}
	var out []string
	for _, c := range pl.Changes {
		part, ok := capacityPartition(c.Property)
		if !ok || c.Queue == "" {
			continue
		}
		q := tree.ByPath[c.Queue]
		seen, known := first[SeenKey(c.Queue, part)]
		if q == nil || !known {
			continue
		}
		b := BandOfSeen(bands.For(c.Queue), seen)
		if v := q.ShareOfParent(part); !b.Contains(v) {
			out = append(out, fmt.Sprintf("%s %s = %s (%.2f%% of its parent) outside [%.2f, %.2f] around the first-seen %s",
				c.Queue, c.Property, c.To, v, b.Lo, b.Hi, seen.Raw))
		}
	}
	return out
}

// capacityPartition: the partition a capacity property sets.
func capacityPartition(prop string) (string, bool) {
	if prop == "capacity" {
		return "", true
	}
	if strings.HasPrefix(prop, "accessible-node-labels.") && strings.HasSuffix(prop, ".capacity") && !strings.HasSuffix(prop, ".maximum-capacity") {
		return strings.TrimSuffix(strings.TrimPrefix(prop, "accessible-node-labels."), ".capacity"), true
	}
	return "", false
}

// CeilingViolations lists every maximum-capacity a plan writes above the
// admin's first-seen ceiling (SeenValue.MaxShare) further than the
// capacity it writes beside it requires (the Capacity Scheduler rejects
// capacity > maximum-capacity): what the ceilings step must never let
// through unless safety.raise_maximum_capacity.
func CeilingViolations(pl *plan.Plan, first map[string]SeenValue) []string {
	tree, err := schedconf.ParseTree(pl.Desired)
	if err != nil {
		return []string{fmt.Sprintf("desired configuration does not parse: %v", err)}
	}
	var out []string
	for _, c := range pl.Changes {
		part, ok := maxCapacityPartition(c.Property)
		if !ok || c.Queue == "" {
			continue
		}
		q := tree.ByPath[c.Queue]
		seen, known := first[SeenKey(c.Queue, part)]
		if q == nil || !known || seen.MaxShare == nil {
			continue
		}
		allowed := math.Max(*seen.MaxShare, q.ShareOfParent(part))
		if v := plan.MaxPercentOf(q, part); v > allowed+0.005 {
			out = append(out, fmt.Sprintf("%s %s = %s above the admin's %g (capacity %.2f)", c.Queue, c.Property, c.To, *seen.MaxShare, q.ShareOfParent(part)))
		}
	}
	return out
}

// maxCapacityPartition: the partition a maximum-capacity property sets.
func maxCapacityPartition(prop string) (string, bool) {
	if prop == "maximum-capacity" {
		return "", true
	}
	if strings.HasPrefix(prop, "accessible-node-labels.") && strings.HasSuffix(prop, ".maximum-capacity") {
		return strings.TrimSuffix(strings.TrimPrefix(prop, "accessible-node-labels."), ".maximum-capacity"), true
	}
	return "", false
}
