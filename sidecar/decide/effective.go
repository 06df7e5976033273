package decide

import (
	"fmt"
	"math"
	"sort"
	"strings"

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
	Inputs     InputLocality
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

// QueueClass is the rate key of a class's jobs in one queue. The plan
// routes queues, and two queues running the same class may read from
// different racks, so their effective rates differ (issue 17).
func QueueClass(class, queue string) string { return class + queueSep + queue }

// queueSep never occurs in a class or queue name.
const queueSep = "\x1f"

// classOfKey is the class of a rate key (a class or a QueueClass).
func classOfKey(key string) (class, queue string) {
	if i := strings.Index(key, queueSep); i >= 0 {
		return key[:i], key[i+len(queueSep):]
	}
	return key, ""
}

// InputLocality is where running jobs' input lives, per rate key (a
// class, or a QueueClass) and node type. sidecar.InputsReport, the block
// maps the plumbing reads from HDFS, implements it (sidecar.RateLocality):
// the decision reads the shares, never the NameNode.
type InputLocality interface {
	RateLocality(snap cluster.Snapshot, types map[string]string, classOf func(cluster.App) string) map[string]map[string]affinity.Locality
}

// rateLocality is in's locality, nil when no input was read.
func rateLocality(in InputLocality, snap cluster.Snapshot, types map[string]string, classOf func(cluster.App) string) map[string]map[string]affinity.Locality {
	if in == nil {
		return nil
	}
	return in.RateLocality(snap, types, classOf)
}

// effectiveRates is a Rates whose cells for classes with known input and
// processing times are Lee's effective rates; the others are base's.
type effectiveRates struct {
	base  progress.Rates
	cells map[string]map[string]float64
}

// Rate implements progress.Rates for a class or a QueueClass key: the
// queue's own cell, else the class's, else the CR table's ratio.
func (e effectiveRates) Rate(key, typ string) (float64, bool) {
	if r, ok := e.cells[key][typ]; ok {
		return r, true
	}
	class, queue := classOfKey(key)
	if queue != "" {
		if r, ok := e.cells[class][typ]; ok {
			return r, true
		}
	}
	if e.base == nil {
		return 0, false
	}
	return e.base.Rate(class, typ)
}

// QueueRateKeys re-keys each queue's class mix to its QueueClass keys
// where the effective-rate step rated that queue's jobs on their own
// input, so the plan rates each queue by where its data lives. Other
// classes (and every class when r is not the step's) keep their key.
// Pure: the queues are copied, not changed.
func QueueRateKeys(queues []progress.QueueDemand, r progress.Rates) []progress.QueueDemand {
	e, ok := r.(effectiveRates)
	if !ok {
		return queues
	}
	out := make([]progress.QueueDemand, len(queues))
	for i, q := range queues {
		out[i] = q
		mix := make(map[string]float64, len(q.Mix))
		for c, w := range q.Mix {
			if k := QueueClass(c, q.Path); len(e.cells[k]) > 0 {
				c = k
			}
			mix[c] += w
		}
		out[i].Mix = mix
	}
	return out
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
// no I/O. ref gives a class's reference type (the CR table's).
//
// loc's keys are classes or QueueClass keys (RateLocality gives both): a
// queue's cells are recomputed from its own jobs' input. This also
// corrects the CR table where it mixed localities: a ratio learned from
// elapsed times on a type holds whatever reads those attempts made
// (remote for one queue, local for another), so it is never applied
// unchanged where Tp is measured — T is rebuilt from the measured
// processing time and the measured bandwidth for this queue's locality.
func EffectiveRates(base progress.Rates, ref func(class string) string, loc map[string]map[string]affinity.Locality, rc ReadCost) (progress.Rates, []string) {
	cells := map[string]map[string]float64{}
	var notes []string
	classes := make([]string, 0, len(loc))
	for c := range loc {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		class, queue := classOfKey(c)
		p, ok := rc.Processing[class]
		r := ref(class)
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
		switch {
		case len(cells[c]) == 0:
		case queue != "" && sameCells(cells[c], cells[class]):
			// One queue runs the class: the class's note says it.
		case queue != "":
			notes = append(notes, fmt.Sprintf("queue %s, class %s: rates count reads (T = Tr + Tp) for where the queue's input lives now: %s", queue, class, describeCells(cells[c])))
		default:
			notes = append(notes, fmt.Sprintf("class %s: rates count reads (T = Tr + Tp) for where its input lives now: %s", c, describeCells(cells[c])))
		}
	}
	return effectiveRates{base: base, cells: cells}, notes
}

// sameCells: the same types at rates within 1%.
func sameCells(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for t, r := range a {
		if o, ok := b[t]; !ok || math.Abs(r-o) > 0.01*math.Max(r, o) {
			return false
		}
	}
	return true
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
