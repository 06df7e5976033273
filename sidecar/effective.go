package sidecar

import (
	"fmt"
	"sort"

	"github.com/yarn-sidecar/yarn-sidecar/affinity"
	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// ReadCost is what the effective-rate step needs besides the CR table:
// where running jobs' input lives (the block-map step's report), each
// class's map processing time per node type and split size, and the read
// bandwidth measured per node type (Prior where nothing is measured yet).
type ReadCost struct {
	Inputs     *InputsReport
	Processing map[string]calibrate.Processing
	Bandwidth  map[string]calibrate.ReadBandwidth
	Prior      affinity.Bandwidth
}

// bandwidth is type t's measured bandwidth, the prior filling gaps.
func (rc ReadCost) bandwidth(t string) affinity.Bandwidth {
	bw := rc.Prior
	if bw == (affinity.Bandwidth{}) {
		bw = affinity.DefaultBandwidth
	}
	if m, ok := rc.Bandwidth[t]; ok {
		if m.NodeLocal > 0 {
			bw.NodeLocal = m.NodeLocal
		}
		if m.RackLocal > 0 {
			bw.RackLocal = m.RackLocal
		}
		if m.OffSwitch > 0 {
			bw.OffSwitch = m.OffSwitch
		}
	}
	return bw
}

// ClassLocality is, per job class and node type, where the class's running
// jobs' input lives: the input-byte-weighted share with a replica on a
// node of the type (node-local for a map placed there, at best) and in a
// rack holding a node of the type (rack-local). Jobs whose block map is
// unread or unreadable are left out, never guessed.
func ClassLocality(snap cluster.Snapshot, types map[string]string, classOf func(cluster.App) string, in *InputsReport) map[string]map[string]affinity.Locality {
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
	nodeBytes := map[string]map[string]float64{}
	rackBytes := map[string]map[string]float64{}
	total := map[string]float64{}
	for _, a := range snap.RunningApps() {
		j, ok := in.Jobs[a.ID]
		m := j.Map()
		if !ok || m == nil || m.Bytes == 0 {
			continue
		}
		c := classOf(a)
		if nodeBytes[c] == nil {
			nodeBytes[c], rackBytes[c] = map[string]float64{}, map[string]float64{}
		}
		total[c] += float64(m.Bytes)
		for t, b := range m.ByPartition(hostType) {
			nodeBytes[c][t] += float64(b)
		}
		for t := range typeSet {
			// Hosts (DataNodes included) in a rack where type t has nodes.
			near := map[string]string{}
			for h, r := range m.RackOf {
				if rackTypes[r][t] {
					near[h] = "near"
				}
			}
			for _, n := range snap.Nodes {
				if rackTypes[n.Rack][t] {
					near[n.Host] = "near"
				}
			}
			rackBytes[c][t] += float64(m.ByPartition(near)["near"])
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

// effectiveRates is a Rates whose cells for classes with known input and
// processing times are Lee's effective rates; the others are base's.
type effectiveRates struct {
	base  progress.Rates
	cells map[string]map[string]float64
}

func (e effectiveRates) Rate(class, typ string) (float64, bool) {
	if r, ok := e.cells[class][typ]; ok {
		return r, true
	}
	if e.base == nil {
		return 0, false
	}
	return e.base.Rate(class, typ)
}

// EffectiveRates is the decision's effective-rate step (Lee §4.3.1.2,
// digest 000 §1.5): for a class whose running jobs' block maps are known
// and whose map processing time (CPU) was measured on its reference type
// and on type t, the rate on t is T(ref) / T(t) with T = Tr + Tp — Tp the
// measured processing time, Tr the split read at t's measured bandwidth
// for where the input lives now (affinity.TaskSeconds). A queue whose data
// sits on storage nodes therefore rates compute-only nodes by what they
// are worth after the remote reads, not by their CPU alone. Cells whose
// processing time is not measured keep the CR table's ratio, or stay
// unknown (so the plan's calibration share still measures them). Pure:
// no I/O. ref gives a class's reference
// type (the CR table's).
func EffectiveRates(base progress.Rates, ref func(class string) string, loc map[string]map[string]affinity.Locality, rc ReadCost) (progress.Rates, []string) {
	cells := map[string]map[string]float64{}
	var notes []string
	classes := make([]string, 0, len(loc))
	for c := range loc {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		p, ok := rc.Processing[c]
		r := ref(c)
		tpRef, known := p.Seconds[r]
		if !ok || r == "" || !known || p.BlockMiB <= 0 {
			continue
		}
		tRef := affinity.TaskSeconds(tpRef, 1, p.BlockMiB, loc[c][r], rc.bandwidth(r))
		for t, l := range loc[c] {
			// Only where the processing time on t was measured: an
			// unknown cell stays unknown, so the plan's calibration
			// share (Lee) still sends work there to measure it.
			tp, ok := p.Seconds[t]
			if !ok || tp <= 0 {
				continue
			}
			cr := tpRef / tp
			tt := affinity.TaskSeconds(tpRef, cr, p.BlockMiB, l, rc.bandwidth(t))
			if cells[c] == nil {
				cells[c] = map[string]float64{}
			}
			cells[c][t] = tRef / tt
		}
		if len(cells[c]) > 0 {
			notes = append(notes, fmt.Sprintf("class %s: rates count reads (T = Tr + Tp) for where its input lives now: %s", c, describeCells(cells[c])))
		}
	}
	return effectiveRates{base: base, cells: cells}, notes
}

func describeCells(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %.2f", k, m[k])
	}
	return s
}
