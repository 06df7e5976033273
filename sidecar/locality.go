package sidecar

import (
	"github.com/yarn-sidecar/yarn-sidecar/affinity"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// The input locality is read from the block maps (blockmaps.go, HDFS), so
// it stays with the plumbing; the decision's effective-rate step reads it
// through decide.InputLocality.

// ClassLocality is, per job class and node type, where the class's running
// jobs' input lives: the input-byte-weighted share with a replica on a
// node of the type (node-local for a map placed there, at best) and in a
// rack holding a node of the type (rack-local). Jobs whose block map is
// unread or unreadable are left out, never guessed.
func ClassLocality(snap cluster.Snapshot, types map[string]string, classOf func(cluster.App) string, in *InputsReport) map[string]map[string]affinity.Locality {
	return localityBy(snap, types, func(a cluster.App) []string { return []string{classOf(a)} }, in)
}

// RateLocality is ClassLocality plus, under QueueClass keys, the same per
// queue × class: what the effective-rate step needs for the job shares
// (by class) and for the plan (by queue).
func RateLocality(snap cluster.Snapshot, types map[string]string, classOf func(cluster.App) string, in *InputsReport) map[string]map[string]affinity.Locality {
	return localityBy(snap, types, func(a cluster.App) []string {
		c := classOf(a)
		return []string{c, decide.QueueClass(c, a.Queue)}
	}, in)
}

// localityBy weighs running jobs' block maps into shares per key (a job
// counts under every key keysOf gives it) and node type.
func localityBy(snap cluster.Snapshot, types map[string]string, keysOf func(cluster.App) []string, in *InputsReport) map[string]map[string]affinity.Locality {
	if in == nil || len(in.Jobs) == 0 {
		return nil
	}
	hostType := map[string]string{}
	rackTypes := map[string]map[string]bool{}
	typeSet := map[string]bool{}
	for _, n := range snap.Nodes {
		t := types[n.ID]
		if t == "" {
			continue
		}
		hostType[n.Host] = t
		typeSet[t] = true
		if rackTypes[n.Rack] == nil {
			rackTypes[n.Rack] = map[string]bool{}
		}
		rackTypes[n.Rack][t] = true
	}
	// Node hosts in a rack where type t has nodes: the same for every
	// job, so worked out once, not per job (jobs × types × nodes).
	nearNodes := map[string]map[string]bool{}
	for t := range typeSet {
		nearNodes[t] = map[string]bool{}
	}
	for _, n := range snap.Nodes {
		for t := range rackTypes[n.Rack] {
			nearNodes[t][n.Host] = true
		}
	}
	nodeType := func(h string) (string, bool) {
		t, ok := hostType[h]
		return t, ok
	}
	nodeBytes := map[string]map[string]float64{}
	rackBytes := map[string]map[string]float64{}
	total := map[string]float64{}
	for _, a := range snap.RunningApps() {
		j, ok := in.Jobs[a.ID]
		m := j.Map()
		if !ok || m == nil || m.Bytes == 0 {
			continue
		}
		// Types holding no replica add nothing below: only the block
		// map's hosts are visited, not the cluster's.
		node := m.ByPartitionOf(nodeType)
		rack := map[string]float64{}
		for t := range typeSet {
			// Hosts (DataNodes included) in a rack where type t has nodes.
			near := func(h string) (string, bool) {
				if r, ok := m.RackOf[h]; ok && rackTypes[r][t] {
					return "near", true
				}
				return "near", nearNodes[t][h]
			}
			rack[t] = float64(m.ByPartitionOf(near)["near"])
		}
		for _, c := range keysOf(a) {
			if nodeBytes[c] == nil {
				nodeBytes[c], rackBytes[c] = map[string]float64{}, map[string]float64{}
			}
			total[c] += float64(m.Bytes)
			for t, b := range node {
				nodeBytes[c][t] += float64(b)
			}
			for t, b := range rack {
				rackBytes[c][t] += b
			}
		}
	}
	out := map[string]map[string]affinity.Locality{}
	for c, tot := range total {
		out[c] = map[string]affinity.Locality{}
		for t := range typeSet {
			nl := nodeBytes[c][t] / tot
			rl := rackBytes[c][t]/tot - nl
			if rl < 0 {
				rl = 0
			}
			out[c][t] = affinity.Locality{NodeLocal: nl, RackLocal: rl}
		}
	}
	return out
}

// RateLocality implements decide.InputLocality (a nil report: no input
// read yet).
func (r *InputsReport) RateLocality(snap cluster.Snapshot, types map[string]string, classOf func(cluster.App) string) map[string]map[string]affinity.Locality {
	return RateLocality(snap, types, classOf, r)
}
