package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// The decomposition of the goal jobs' container-hours over their minimum
// (issue 18's measure, deadlineWork): per class, what its maps used above
// their least on each node type, and the reduces; each figure a share of
// the minimum of every goal job, so the shares add up to the ratio − 1.
//
// Against a second bound as well, the partition bound: each map in the
// partition its queue may use (accessible-node-labels, as configured in
// the scenario: the tight runs change no labels) where it runs fastest,
// at that partition's slot-weighted mean of 1/speed. YARN's placement
// inside a partition follows node heartbeats, which no queue setting
// steers, so maps over the partition bound are the sidecar's (or the
// queue's) choice of partition and the waits that chose for it; maps
// between the minimum and the partition bound are placement inside a
// partition. (Each map on the fastest node type of its queue's
// partitions is the minimum itself here: every queue may use the default
// partition, which holds cpu-new.) Non-exclusive partitions' idle nodes
// serving default-partition work are not counted in the bound.
//
// The maps that started within sim.EarlyWindow (the sidecar's 30 s cycle)
// of their job's submission are shown apart: they may have been placed
// before any cycle saw the job, so only a home their queue already had
// could have chosen their partition.

// goalWork is the decomposition over a set of runs.
type goalWork struct {
	least   float64                           // the minimum, all goal jobs
	maps    map[string]map[string]sim.TypeUse // class → node type → use
	mapsMin map[string]float64                // class → maps' minimum
	bound   map[string]float64                // class → maps' partition bound
	reduces map[string]float64                // class → reduces' use over their least
	killed  float64                           // killed attempts' container-seconds
	// firstMap is each goal job's wait from submission to its first map
	// (its AM's start and first request): a decision made later than that
	// cannot choose where the job's first wave runs.
	firstMap []time.Duration
}

// partitionCost is the slot-weighted mean of 1/speed of the class on the
// node types of each partition ("" the default).
func partitionCost(sc *sim.Scenario, class string) map[string]float64 {
	w, inv := map[string]float64{}, map[string]float64{}
	for _, nt := range sc.NodeTypes {
		slots := float64(nt.Count) * float64(nt.MemoryMB)
		w[nt.Label] += slots
		inv[nt.Label] += slots / sc.TrueSpeed(nt.Name, class)
	}
	out := map[string]float64{}
	for p, s := range w {
		if s > 0 {
			out[p] = inv[p] / s
		}
	}
	return out
}

// queuePartitions are the partitions a queue (full path) may use: the
// default and its accessible-node-labels, inherited from the nearest
// ancestor that sets them ("*": every label).
func queuePartitions(sc *sim.Scenario, queue string) []string {
	out := []string{""}
	for q := queue; q != ""; {
		v, ok := sc.Conf["yarn.scheduler.capacity."+q+".accessible-node-labels"]
		if ok {
			for _, l := range strings.Split(v, ",") {
				l = strings.TrimSpace(l)
				if l == "*" {
					for _, ls := range sc.Labels {
						out = append(out, ls.Name)
					}
				} else if l != "" {
					out = append(out, l)
				}
			}
			break
		}
		i := strings.LastIndex(q, ".")
		if i < 0 {
			break
		}
		q = q[:i]
	}
	return out
}

func decomposeGoalWork(sc *sim.Scenario, rs []experiment.Result) goalWork {
	g := goalWork{maps: map[string]map[string]sim.TypeUse{}, mapsMin: map[string]float64{}, bound: map[string]float64{}, reduces: map[string]float64{}}
	for _, r := range rs {
		for _, j := range r.Jobs {
			if j.Deadline == nil {
				continue
			}
			g.least += j.MinTaskSeconds
			g.killed += j.WastedSeconds
			if !j.FirstMap.IsZero() {
				g.firstMap = append(g.firstMap, j.FirstMap.Sub(j.Submit))
			}
			if g.maps[j.Class] == nil {
				g.maps[j.Class] = map[string]sim.TypeUse{}
			}
			var used, least float64
			for typ, u := range j.MapUse {
				t := g.maps[j.Class][typ]
				t.Seconds += u.Seconds
				t.Least += u.Least
				t.Early += u.Early
				t.EarlyLeast += u.EarlyLeast
				g.maps[j.Class][typ] = t
				used, least = used+u.Seconds, least+u.Least
			}
			g.mapsMin[j.Class] += least
			g.reduces[j.Class] += (j.TaskSeconds - used) - (j.MinTaskSeconds - least)
			cost := partitionCost(sc, j.Class)
			best := 0.0
			for _, p := range queuePartitions(sc, j.Queue) {
				if c, ok := cost[p]; ok && (best == 0 || c < best) {
					best = c
				}
			}
			g.bound[j.Class] += j.MapProc*best + j.MapRead
		}
	}
	return g
}

// classFigure is one class's line: its maps' container-seconds over their
// least on each node type and its reduces', as shares of the minimum, and
// its maps over their minimum and over the partition bound.
func (g goalWork) classFigure(class string) string {
	if g.least == 0 {
		return "no goal jobs"
	}
	var parts []string
	var used, early float64
	for _, typ := range slices.Sorted(maps.Keys(g.maps[class])) {
		u := g.maps[class][typ]
		used += u.Seconds
		early += u.Early - u.EarlyLeast
		parts = append(parts, fmt.Sprintf("%s %+.3f", typ, (u.Seconds-u.Least)/g.least))
	}
	parts = append(parts, fmt.Sprintf("reduces %+.3f", g.reduces[class]/g.least))
	f := strings.Join(parts, ", ")
	if g.mapsMin[class] > 0 && g.bound[class] > 0 {
		f += fmt.Sprintf("; maps %.2f× their minimum, %.2f× the partition bound", used/g.mapsMin[class], used/g.bound[class])
	}
	return f + fmt.Sprintf("; of the maps' part, %+.3f started within %s of submission", early/g.least, sim.EarlyWindow)
}

// totalFigure is every class's maps against both bounds, and the killed
// attempts' share of the minimum.
func (g goalWork) totalFigure() string {
	var used, least, bound, red, early float64
	for c, types := range g.maps {
		for _, u := range types {
			used += u.Seconds
			early += u.Early - u.EarlyLeast
		}
		least += g.mapsMin[c]
		bound += g.bound[c]
		red += g.reduces[c]
	}
	if least == 0 || bound == 0 || g.least == 0 {
		return "no goal jobs"
	}
	// The whole ratio's own floor by partition choice alone: every map at
	// its partition bound, every reduce at its least (g.least − least),
	// with no partition ever full.
	whole := (bound + g.least - least) / g.least
	return fmt.Sprintf("maps %+.3f (%.2f× their minimum, %.2f× the partition bound, which is %.2f× the minimum; %+.3f started within %s of submission), reduces %+.3f, killed %.3f; every goal job at the partition bound (reduces at their least, no partition full): %.2f× the minimum",
		(used-least)/g.least, used/least, used/bound, bound/least, early/g.least, sim.EarlyWindow, red/g.least, g.killed/g.least, whole) + g.firstMapFigure()
}

// firstMapFigure is how long the goal jobs waited for their first map:
// the time a decision has to place their first wave.
func (g goalWork) firstMapFigure() string {
	if len(g.firstMap) == 0 {
		return ""
	}
	d := slices.Sorted(slices.Values(g.firstMap))
	at := func(q float64) time.Duration { return d[int(q*float64(len(d)-1))].Round(100 * time.Millisecond) }
	return fmt.Sprintf("; first map %s after submission (median; fastest %s, 90th percentile %s, %d jobs)", at(0.5), at(0), at(0.9), len(d))
}
