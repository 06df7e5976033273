package sim

import (
	"fmt"
	"math/rand/v2"
)

// Rack placement keys (issue 17): which racks a node type's nodes sit in
// (node_types[].racks) and which racks hold a generator's input
// (generators[].input_racks), so a scenario can put a queue's data next to
// the compute-only nodes or away from them. Racks are indices
// 0..racks-1, the sim's /rack-00, /rack-01, ... Without these keys nodes
// are dealt round-robin over all racks and replicas follow HDFS's default
// policy over every DataNode.

// rackName is the sim's name of rack index i.
func rackName(i int) string { return fmt.Sprintf("/rack-%02d", i) }

// nodeRack is the rack of a node type's i-th node: round-robin over the
// type's racks when set, else over all racks in node order (seq counts the
// unrestricted nodes so far).
func nodeRack(nt NodeTypeSpec, i int, seq *int, racks int) string {
	if len(nt.Racks) > 0 {
		return rackName(nt.Racks[i%len(nt.Racks)])
	}
	r := rackName(*seq % racks)
	*seq++
	return r
}

// placeReplicasIn places a block's 3 replicas on DataNodes of the given
// racks only, the default policy within them: one random node, then two
// on one other rack of the set (the same rack when the set has one).
// Empty racks: the default policy over every DataNode.
func (c *Cluster) placeReplicasIn(luck *rand.Rand, racks []int) []string {
	if len(racks) == 0 {
		return c.placeReplicas(luck)
	}
	in := map[string]bool{}
	for _, r := range racks {
		in[rackName(r)] = true
	}
	var cands []*node
	for _, n := range c.nodes {
		if n.datanode && in[n.rack] {
			cands = append(cands, n)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	first := cands[luck.IntN(len(cands))]
	var other []*node
	for _, n := range cands {
		if n.rack != first.rack {
			other = append(other, n)
		}
	}
	if len(other) == 0 {
		other = cands
	}
	return c.replicaHosts(luck, first, other)
}

// validatePlacement checks the rack keys (node_types[].racks,
// jobs[].input_racks, generators[].input_racks): indices within racks, and
// every input_racks set holding at least one DataNode.
func (sc *Scenario) validatePlacement() []string {
	var bad []string
	racks := max(sc.Racks, 1)
	if racks > MaxRacks {
		return nil // limits() names it
	}
	dnRacks := map[int]bool{}
	seq := 0
	for i, nt := range sc.NodeTypes {
		for _, r := range nt.Racks {
			if r < 0 || r >= racks {
				bad = append(bad, fmt.Sprintf("node_types[%d].racks: rack %d is outside 0..%d (racks: %d)", i, r, racks-1, racks))
			}
		}
		dn := nt.DataNode == nil || *nt.DataNode
		// Which racks the type's nodes land in, without a loop over the
		// nodes (a count out of bounds is limits()'s error, not a hang).
		if len(nt.Racks) > 0 {
			for k := 0; k < min(max(nt.Count, 0), len(nt.Racks)); k++ {
				dnRacks[nt.Racks[k]] = dnRacks[nt.Racks[k]] || dn
			}
			continue
		}
		for k := 0; k < min(max(nt.Count, 0), racks); k++ {
			r := (seq + k) % racks
			dnRacks[r] = dnRacks[r] || dn
		}
		seq = (seq + max(nt.Count, 0)) % racks
	}
	check := func(field string, in []int) {
		hasDN := false
		for _, r := range in {
			if r < 0 || r >= racks {
				bad = append(bad, fmt.Sprintf("%s.input_racks: rack %d is outside 0..%d (racks: %d)", field, r, racks-1, racks))
			}
			hasDN = hasDN || dnRacks[r]
		}
		if len(in) > 0 && !hasDN {
			bad = append(bad, fmt.Sprintf("%s.input_racks %v: no DataNode sits in those racks", field, in))
		}
	}
	for i, j := range sc.Jobs {
		check(fmt.Sprintf("jobs[%d]", i), j.InputRacks)
	}
	for i, g := range sc.Generators {
		check(fmt.Sprintf("generators[%d]", i), g.InputRacks)
	}
	return bad
}
