package calibrate

import (
	"sort"
	"time"
)

// Localities a map attempt reads with, as MapReduce's job counters name
// them (DATA_LOCAL_MAPS, RACK_LOCAL_MAPS, OTHER_LOCAL_MAPS).
const (
	NodeLocal = "NODE_LOCAL"
	RackLocal = "RACK_LOCAL"
	OffSwitch = "OFF_SWITCH"
)

// ReadBandwidth is the read bandwidth (MiB/s) a node type was measured to
// get by locality, with the samples behind each figure; a zero figure is
// unmeasured (fewer than MinSamples).
type ReadBandwidth struct {
	NodeLocal, RackLocal, OffSwitch float64
	Samples                         map[string]int
}

// ReadSeconds is the read part of a map attempt: its elapsed time less
// its CPU time (CPU_MILLISECONDS). On a real cluster that remainder also
// holds JVM start-up and GC pauses, so it is an upper bound on the read
// and the bandwidth a lower bound; for large splits the read dominates.
// ok is false when the attempt has no CPU time, read no bytes, or spent
// all its time on CPU (a CPU-bound map says nothing about the network).
func (s Sample) ReadSeconds() (float64, bool) {
	if !s.IsMap() || s.CPU <= 0 || s.Bytes <= 0 {
		return 0, false
	}
	r := (s.Elapsed - s.CPU).Seconds()
	// Below 1% of the elapsed time the remainder is timer noise.
	if r <= 0 || s.Elapsed-s.CPU < s.Elapsed/100 || s.Elapsed-s.CPU < time.Millisecond {
		return 0, false
	}
	return r, true
}

// Bandwidths learns read bandwidth by locality per node type from map
// samples with a known locality: the median of bytes over read seconds
// (robust to the few attempts whose locality was inferred wrongly and to
// JVM-start outliers). minSamples (default 3) are needed for a figure.
func Bandwidths(samples []Sample, minSamples int) map[string]ReadBandwidth {
	if minSamples <= 0 {
		minSamples = 3
	}
	obs := map[string]map[string][]float64{} // type → locality → MiB/s
	for _, s := range samples {
		if s.Locality == "" {
			continue
		}
		r, ok := s.ReadSeconds()
		if !ok {
			continue
		}
		if obs[s.NodeType] == nil {
			obs[s.NodeType] = map[string][]float64{}
		}
		obs[s.NodeType][s.Locality] = append(obs[s.NodeType][s.Locality], float64(s.Bytes)/(1<<20)/r)
	}
	out := map[string]ReadBandwidth{}
	for t, byLoc := range obs {
		bw := ReadBandwidth{Samples: map[string]int{}}
		for loc, v := range byLoc {
			bw.Samples[loc] = len(v)
			if len(v) < minSamples {
				continue
			}
			m := Median(v)
			switch loc {
			case NodeLocal:
				bw.NodeLocal = m
			case RackLocal:
				bw.RackLocal = m
			case OffSwitch:
				bw.OffSwitch = m
			}
		}
		out[t] = bw
	}
	return out
}

// Median is the middle of v (the mean of the two middle values when v has
// an even length); v is not reordered.
func Median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Processing is a class's map processing time (CPU, no read) per node
// type, and its split size: the Tp and block of Lee's T = Tr + Tp.
type Processing struct {
	Seconds  map[string]float64 // node type → median CPU seconds per map
	BlockMiB float64            // median split read, MiB
	Samples  map[string]int
}

// ProcessingTimes gathers, per class, the median CPU seconds of a map on
// each node type (minSamples, default 3, per cell) and the median split.
func ProcessingTimes(samples []Sample, minSamples int) map[string]Processing {
	if minSamples <= 0 {
		minSamples = 3
	}
	cpu := map[string]map[string][]float64{}
	blocks := map[string][]float64{}
	for _, s := range samples {
		if !s.IsMap() || s.CPU <= 0 {
			continue
		}
		if cpu[s.Class] == nil {
			cpu[s.Class] = map[string][]float64{}
		}
		cpu[s.Class][s.NodeType] = append(cpu[s.Class][s.NodeType], s.CPU.Seconds())
		if s.Bytes > 0 {
			blocks[s.Class] = append(blocks[s.Class], float64(s.Bytes)/(1<<20))
		}
	}
	out := map[string]Processing{}
	for c, byType := range cpu {
		p := Processing{Seconds: map[string]float64{}, Samples: map[string]int{}}
		for t, v := range byType {
			p.Samples[t] = len(v)
			if len(v) >= minSamples {
				p.Seconds[t] = Median(v)
			}
		}
		if len(blocks[c]) > 0 {
			p.BlockMiB = Median(blocks[c])
		}
		out[c] = p
	}
	return out
}
