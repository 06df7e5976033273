package plan

import (
	"math"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Band is the interval, in percent of the parent, a queue's capacity may be
// written in for one partition.
type Band struct{ Lo, Hi float64 }

// Contains reports whether v lies in the band (to the hundredth the
// sidecar writes).
func (b Band) Contains(v float64) bool { return v >= b.Lo-0.005 && v <= b.Hi+0.005 }

// FitBands moves want into the bands keeping its sum: clamp, then spread
// the difference over the members with room in proportion to their room
// (one pass suffices: each member's share of the difference is at most
// its room). It reports false when the bands cannot hold the sum.
func FitBands(want map[string]float64, bands map[string]Band) (map[string]float64, bool) {
	out := map[string]float64{}
	sum, clamped := 0.0, 0.0
	for q, w := range want {
		sum += w
		b := bands[q]
		out[q] = math.Min(math.Max(w, b.Lo), b.Hi)
		clamped += out[q]
	}
	diff := sum - clamped
	if math.Abs(diff) < 1e-9 {
		return out, true
	}
	room := 0.0
	for q, v := range out {
		if diff > 0 {
			room += bands[q].Hi - v
		} else {
			room += v - bands[q].Lo
		}
	}
	if room < math.Abs(diff)-1e-9 {
		return nil, false
	}
	for q, v := range out {
		r := v - bands[q].Lo
		if diff > 0 {
			r = bands[q].Hi - v
		}
		out[q] = v + diff*r/room
	}
	return out, true
}

// groupMode is the mode of a parent's children in a partition ("" mode
// with ok when none has a capacity there yet: percentage is assumed).
func GroupMode(parent *schedconf.Queue, part string) (schedconf.Mode, bool) {
	var mode schedconf.Mode
	for _, c := range parent.Children {
		v, ok := c.Capacity[part]
		if !ok {
			continue
		}
		if mode != "" && v.Mode != mode {
			return "", false
		}
		mode = v.Mode
	}
	if mode == "" {
		mode = schedconf.ModePercentage
	}
	return mode, true
}

// Encoding is how one sibling group's capacities are written in one
// partition: the group's own mode (the sidecar never converts a tree from
// one mode to another, and never mixes modes among siblings or across a
// queue's partitions — the Capacity Scheduler rejects both).
type Encoding struct {
	Mode schedconf.Mode
	// WeightSum: weight mode keeps the siblings' weight sum as it is, so a
	// band on the share of the parent is a band on the weight.
	WeightSum float64
	// ParentMemoryMB and ParentVCores: absolute mode writes
	// share × the parent's resources in the partition.
	ParentMemoryMB int64
	ParentVCores   int64
}

// CalibrationExposure is what one calibration move risks: the queue sent
// to an unmeasured partition and the containers of demand it may run there.
// A calibration lend (one node of Partition lent to the default partition)
// has no Queue: any default-partition queue may run its Containers there.
type CalibrationExposure struct {
	Queue      string `json:"queue"`
	Partition  string `json:"partition"`
	Containers int64  `json:"containers"`
}

// disablePreemptionProp is the Capacity Scheduler's per-queue switch the
// preemption shield writes.
const DisablePreemptionProp = "disable_preemption"
