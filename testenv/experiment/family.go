package experiment

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// StaticFamily is what a skilled admin would try by hand on a cluster with
// a labelled partition, written in the queue tree's own mode (issue 35: the
// sweep knew only flat trees and wrote leaf percentages that broke a
// nested tree's per-parent sums). Besides stock, each member routes one
// leaf to the partition (default-node-label-expression) with 50, 75 or
// 100% of it, or two leaves under different top-level queues with half
// each. The partition's capacity is then written per sibling group, one
// family of values per parent:
//   - among root's children, the queue holding a routed leaf gets its share
//     (g, or 50 each for two) and its siblings share the rest evenly;
//   - below that, on a routed leaf's path the child gets all of its parent
//     and its siblings none; elsewhere the children share their parent
//     evenly, or get nothing when their parent has nothing.
//
// Each group is written in the mode its children already use for the
// partition: percentages summing to 100 (or 0 under a parent with none),
// weights (Nw; a share of 0 becomes 1w, as weights cannot express none),
// or absolute resources, the partition's memory and vcores times the
// parent's fraction. Every member passes the Capacity Scheduler's
// validation. Without a label, or with one leaf queue that may use it, the
// family is stock alone.
func StaticFamily(sc *sim.Scenario) ([]NamedMutation, error) {
	base := schedconf.Conf(sc.Conf)
	tree, err := schedconf.ParseTree(base)
	if err != nil {
		return nil, fmt.Errorf("scenario %s queues: %w", sc.Name, err)
	}
	var label string
	for _, l := range sc.Labels {
		label = l.Name
	}
	family := []NamedMutation{{Name: "stock"}}
	var leaves []*schedconf.Queue
	for _, q := range tree.Leaves() {
		if label != "" && q.CanUse(label) {
			leaves = append(leaves, q)
		}
	}
	if len(leaves) < 2 {
		return family, nil
	}
	mem, vcores := labelTotal(sc, label)
	w := familyWriter{tree: tree, label: label, mem: mem, vcores: vcores}
	add := func(name string, top map[string]float64, routed []*schedconf.Queue) error {
		to := base.Clone()
		w.write(to, top, routed)
		for _, q := range routed {
			to[schedconf.Key(q.Path, "default-node-label-expression")] = label
		}
		// The admin who routes queues to compute-only nodes also stops
		// delay scheduling from throttling them (as the sidecar does).
		to[schedconf.Prefix+"rack-locality-full-reset"] = "false"
		if err := schedconf.Validate(to); err != nil {
			return fmt.Errorf("static %s: %w", name, err)
		}
		m := schedconf.Diff(base, to)
		family = append(family, NamedMutation{Name: name, Mutation: &m})
		return nil
	}
	tops := tree.Root.Children
	for _, q := range leaves {
		top := topOf(tree, q)
		for _, g := range []int{50, 75, 100} {
			shares := spreadQueues(tops, 100-g, top)
			shares[top.Path] = float64(g)
			if err := add(fmt.Sprintf("%s→%s %d%%", ShortQueue(q.Path), label, g), shares, []*schedconf.Queue{q}); err != nil {
				return nil, err
			}
		}
	}
	for i, a := range leaves {
		for _, b := range leaves[i+1:] {
			ta, tb := topOf(tree, a), topOf(tree, b)
			if ta == tb {
				continue // one top-level queue would hold the whole partition
			}
			shares := map[string]float64{ta.Path: 50, tb.Path: 50}
			if err := add(fmt.Sprintf("%s+%s→%s 50/50", ShortQueue(a.Path), ShortQueue(b.Path), label), shares, []*schedconf.Queue{a, b}); err != nil {
				return nil, err
			}
		}
	}
	return family, nil
}

// familyWriter writes one candidate's partition capacities, sibling group
// by sibling group.
type familyWriter struct {
	tree        *schedconf.Tree
	label       string
	mem, vcores int64 // the partition's resources (absolute mode)
}

// write sets the children of every parent: root's from top (percent of
// root), deeper ones by childShares.
func (w familyWriter) write(to schedconf.Conf, top map[string]float64, routed []*schedconf.Queue) {
	var visit func(p *schedconf.Queue, frac float64, shares map[string]float64)
	visit = func(p *schedconf.Queue, frac float64, shares map[string]float64) {
		w.group(to, p, shares, frac)
		for _, c := range p.Children {
			if !c.IsLeaf() && c.CanUse(w.label) {
				cf := frac * shares[c.Path] / 100
				visit(c, cf, w.childShares(c, cf, routed))
			}
		}
	}
	visit(w.tree.Root, 1, top)
}

// childShares is the percent of p each child of p gets: all to the child
// on a routed leaf's path, else even; none when p has nothing.
func (w familyWriter) childShares(p *schedconf.Queue, frac float64, routed []*schedconf.Queue) map[string]float64 {
	out := map[string]float64{}
	if frac == 0 {
		for _, c := range p.Children {
			out[c.Path] = 0
		}
		return out
	}
	for _, c := range p.Children {
		for _, r := range routed {
			if r.Path == c.Path || strings.HasPrefix(r.Path, c.Path+".") {
				for _, s := range p.Children {
					out[s.Path] = 0
				}
				out[c.Path] = 100
				return out
			}
		}
	}
	return spreadQueues(p.Children, 100, nil)
}

// group writes the partition capacity of p's children (percent of p) in
// the mode they use; frac is p's fraction of the whole partition.
func (w familyWriter) group(to schedconf.Conf, p *schedconf.Queue, shares map[string]float64, frac float64) {
	prop := "accessible-node-labels." + w.label + ".capacity"
	mode := schedconf.ModePercentage
	for _, c := range p.Children {
		if v, ok := c.Capacity[w.label]; ok && v.Mode != "" {
			mode = v.Mode
		}
	}
	for _, c := range p.Children {
		v := shares[c.Path]
		var s string
		switch mode {
		case schedconf.ModeWeight:
			s = strconv.FormatFloat(max(v, 1), 'f', -1, 64) + "w"
		case schedconf.ModeAbsolute:
			s = fmt.Sprintf("[memory=%d,vcores=%d]", int64(v/100*frac*float64(w.mem)), int64(v/100*frac*float64(w.vcores)))
		default:
			s = strconv.FormatFloat(v, 'f', -1, 64)
		}
		to[schedconf.Key(c.Path, prop)] = s
	}
}

// topOf is the child of root that holds q.
func topOf(t *schedconf.Tree, q *schedconf.Queue) *schedconf.Queue {
	for q.Parent != nil && q.Parent != t.Root {
		q = q.Parent
	}
	return q
}

// spreadQueues shares total among qs other than skip, in whole percents
// (so a percentage group sums to exactly 100), the remainder to the first
// in path order.
func spreadQueues(qs []*schedconf.Queue, total int, skip *schedconf.Queue) map[string]float64 {
	qs = slices.SortedFunc(slices.Values(qs), func(a, b *schedconf.Queue) int { return strings.Compare(a.Path, b.Path) })
	out := map[string]float64{}
	n := len(qs)
	if skip != nil {
		n--
	}
	if n <= 0 {
		return out
	}
	k := 0
	for _, q := range qs {
		if q == skip {
			continue
		}
		v := total / n
		if k < total%n {
			v++
		}
		out[q.Path] = float64(v)
		k++
	}
	return out
}

// labelTotal is the labelled partition's memory (MB) and vcores.
func labelTotal(sc *sim.Scenario, label string) (int64, int64) {
	var mem, vc int64
	for _, nt := range sc.NodeTypes {
		if nt.Label == label {
			mem += int64(nt.Count) * nt.MemoryMB
			vc += int64(nt.Count) * nt.VCores
		}
	}
	return mem, vc
}
