package sim

import (
	"math"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// resolveCapacities gives every queue its guaranteed and maximum share of
// each partition the way the Capacity Scheduler's queue capacity
// calculators do (CapacityScheduler.md "Queue Properties";
// AbsoluteResourceCapacityCalculator, PercentageQueueCapacityCalculator,
// WeightQueueCapacityCalculator), top-down from root:
//
//   - absolute children first: their configured memory, scaled down by
//     min(1, parent's resources / Σ children's configured) when the
//     children ask for more than the parent has;
//   - percentage children: parent × pct/100;
//   - weight children: what the absolute and percentage siblings left of
//     the parent, divided by weight / Σ sibling weights;
//   - maximum-capacity: a percentage of the parent's maximum, an absolute
//     resource capped at the parent's maximum, else the parent's maximum.
//
// Modelled on memory alone (the sidecar plans in memory-sized slots); the
// RM computes every resource type and uses the dominant one.
func resolveCapacities(t *schedconf.Tree, totals map[string]rmweb.Resource) {
	var walk func(q *schedconf.Queue)
	walk = func(q *schedconf.Queue) {
		for _, l := range t.Labels {
			total := float64(totals[l].MemoryMB)
			parentAbs, parentMax := q.AbsCapacity[l], q.AbsMaxCapacity[l]
			parentMem := parentAbs * total
			var absSum, weightSum float64
			for _, c := range q.Children {
				if v, ok := c.Capacity[l]; ok {
					switch v.Mode {
					case schedconf.ModeAbsolute:
						absSum += float64(v.Absolute["memory"])
					case schedconf.ModeWeight:
						weightSum += v.Weight
					}
				}
			}
			scale := 1.0
			if absSum > parentMem && absSum > 0 {
				scale = parentMem / absSum
			}
			remaining := parentAbs
			for _, c := range q.Children {
				v, ok := c.Capacity[l]
				switch {
				case !ok || total == 0:
					c.AbsCapacity[l] = 0
				case v.Mode == schedconf.ModeAbsolute:
					c.AbsCapacity[l] = float64(v.Absolute["memory"]) * scale / total
				case v.Mode == schedconf.ModePercentage:
					c.AbsCapacity[l] = parentAbs * v.Percent / 100
				default:
					continue // weights take what is left, below
				}
				remaining -= c.AbsCapacity[l]
			}
			remaining = math.Max(remaining, 0)
			for _, c := range q.Children {
				if v, ok := c.Capacity[l]; ok && v.Mode == schedconf.ModeWeight {
					c.AbsCapacity[l] = 0
					if weightSum > 0 {
						c.AbsCapacity[l] = remaining * v.Weight / weightSum
					}
				}
			}
			for _, c := range q.Children {
				m, ok := c.MaxCapacity[l]
				switch {
				case ok && m.Mode == schedconf.ModePercentage:
					c.AbsMaxCapacity[l] = parentMax * m.Percent / 100
				case ok && m.Mode == schedconf.ModeAbsolute && total > 0:
					c.AbsMaxCapacity[l] = math.Min(parentMax, float64(m.Absolute["memory"])/total)
				default:
					c.AbsMaxCapacity[l] = parentMax
				}
				if l != "" && !c.CanUse(l) {
					c.AbsCapacity[l], c.AbsMaxCapacity[l] = 0, 0
				}
			}
		}
		for _, c := range q.Children {
			walk(c)
		}
	}
	for _, l := range t.Labels {
		t.Root.AbsCapacity[l], t.Root.AbsMaxCapacity[l] = 1, 1
	}
	walk(t.Root)
}

// partitionTotals are the running nodes' resources per partition.
func (c *Cluster) partitionTotals() map[string]rmweb.Resource {
	totals := map[string]rmweb.Resource{}
	for _, n := range c.nodes {
		if n.state == "RUNNING" {
			totals[n.label] = add(totals[n.label], n.total)
		}
	}
	return totals
}
