package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// treeFamily is the static sweep of the held-out rows: what a skilled
// admin would try by hand on a cluster with labelled partitions, on any
// tree, each sibling group written in its own mode (percent, weights,
// absolute). It is StaticFamily's members (experiment/compare.go) —
// route one leaf to a partition with 50, 75 or 100% of it, the rest spread
// over the other leaves; route two leaves, half each — expressed as each
// leaf's share of the partition, from which every queue's share of its
// parent follows (a parent holds its leaves' sum; a parent with nothing
// has children with nothing, as the Capacity Scheduler requires). The admin's
// own routing in the scenario stays as it is unless a member routes the
// same leaf elsewhere.
func treeFamily(sc *sim.Scenario) ([]experiment.NamedMutation, error) {
	base := schedconf.Conf(sc.Conf)
	tree, err := schedconf.ParseTree(base)
	if err != nil {
		return nil, err
	}
	family := []experiment.NamedMutation{{Name: "stock"}}
	var leaves []string
	for _, q := range tree.Leaves() {
		leaves = append(leaves, q.Path)
	}
	if len(leaves) < 2 {
		return family, nil
	}
	totals := map[string][2]int64{}
	for _, nt := range sc.NodeTypes {
		t := totals[nt.Label]
		t[0] += int64(nt.Count) * nt.MemoryMB
		t[1] += int64(nt.Count) * nt.VCores
		totals[nt.Label] = t
	}
	add := func(name, label string, leafShare map[string]float64, routed []string) error {
		to := base.Clone()
		prop := "accessible-node-labels." + label + ".capacity"
		// abs: each queue's share of the partition (sum of its leaves').
		abs := map[string]float64{}
		var sumUp func(q *schedconf.Queue) float64
		sumUp = func(q *schedconf.Queue) float64 {
			if q.IsLeaf() {
				abs[q.Path] = leafShare[q.Path]
				return abs[q.Path]
			}
			s := 0.0
			for _, c := range q.Children {
				s += sumUp(c)
			}
			abs[q.Path] = s
			return s
		}
		sumUp(tree.Root)
		var write func(q *schedconf.Queue, parentAbs float64)
		write = func(q *schedconf.Queue, parentAbs float64) {
			if q.IsLeaf() {
				return
			}
			mode := schedconf.ModePercentage
			for _, c := range q.Children {
				if v, ok := c.Capacity[label]; ok {
					mode = v.Mode
				}
			}
			left := 100.0
			for i, c := range q.Children {
				// A parent with nothing in the partition has children with
				// nothing (the Capacity Scheduler rejects any other sum).
				pct := 0.0
				if parentAbs > 1e-12 {
					pct = 100 * abs[c.Path] / parentAbs
				}
				pct = math.Round(pct*100) / 100
				if i == len(q.Children)-1 && parentAbs > 1e-12 {
					pct = math.Round(left*100) / 100
				}
				left -= pct
				key := schedconf.Key(c.Path, prop)
				switch mode {
				case schedconf.ModeWeight:
					to[key] = strconv.FormatFloat(math.Max(pct, 0.01), 'f', -1, 64) + "w"
				case schedconf.ModeAbsolute:
					share := abs[c.Path]
					if parentAbs <= 1e-12 {
						share = 0
					}
					t := totals[label]
					to[key] = fmt.Sprintf("[memory=%d,vcores=%d]", int64(share*float64(t[0])), int64(share*float64(t[1])))
				default:
					to[key] = strconv.FormatFloat(math.Max(pct, 0), 'f', -1, 64)
				}
				write(c, abs[c.Path])
			}
		}
		write(tree.Root, 1)
		for _, r := range routed {
			to[schedconf.Key(r, "default-node-label-expression")] = label
		}
		to[schedconf.Prefix+"rack-locality-full-reset"] = "false"
		if err := schedconf.Validate(to); err != nil {
			return fmt.Errorf("static %s: %w", name, err)
		}
		m := schedconf.Diff(base, to)
		family = append(family, experiment.NamedMutation{Name: name, Mutation: &m})
		return nil
	}
	for _, l := range sc.Labels {
		for _, q := range leaves {
			for _, g := range []float64{50, 75, 100} {
				shares := map[string]float64{}
				for _, o := range leaves {
					shares[o] = (1 - g/100) / float64(len(leaves)-1)
				}
				shares[q] = g / 100
				if err := add(fmt.Sprintf("%s→%s %.0f%%", experiment.ShortQueue(q), l.Name, g), l.Name, shares, []string{q}); err != nil {
					return nil, err
				}
			}
		}
		for i, a := range leaves {
			for _, b := range leaves[i+1:] {
				shares := map[string]float64{a: 0.5, b: 0.5}
				if err := add(fmt.Sprintf("%s+%s→%s 50/50", experiment.ShortQueue(a), experiment.ShortQueue(b), l.Name), l.Name, shares, []string{a, b}); err != nil {
					return nil, err
				}
			}
		}
	}
	return family, nil
}
