package sim

import (
	"math"
	"time"
)

// Container time of a job's tasks against the least it could have taken
// (issue 18: container-hours used by deadline jobs over their minimum).
//
// The minimum is the least work n·μ of the job's tasks, each on the
// fastest node type whose resources hold the task's container: a map's
// processing at that type's speed plus a node-local read, a reduce's
// shuffle plus its reduce at that speed, each times the noise's mean
// exp(σ²/2). It is work, not time: Malekimajd's bounds (deadline/bounds.go)
// divide the same n·μ by the slots to bound completion, so no slot count
// or wave shape enters here. What the job used above it is placement on
// slower nodes, reduces held while the maps run (slow start), remote
// reads, and killed attempts (preempted or speculative losers: waste).

// taskUse sums an app's task attempts' container-seconds (running ones up
// to now) and, of those, the killed attempts'.
func taskUse(a *app, now time.Time) (used, wasted float64) {
	for _, ts := range [][]*task{a.maps, a.reduces} {
		for _, t := range ts {
			for _, at := range t.attempts {
				end := at.finish
				if at.state == "RUNNING" || end.IsZero() {
					end = now
				}
				s := end.Sub(at.start).Seconds()
				used += s
				if at.state == "KILLED" {
					wasted += s
				}
			}
		}
	}
	return used, wasted
}

// MinWork is the least container-seconds a job of the class with maps of
// these input sizes and this many reduces needs (see above); since is the
// job's submission from the scenario's start (speed changes apply).
func (sc *Scenario) MinWork(class string, mapBytes []int64, reduces int, since time.Duration) float64 {
	cls, ok := sc.Class(class)
	if !ok {
		return 0
	}
	speed := sc.fastestSpeed(cls, since)
	if speed == 0 {
		return 0
	}
	work := 0.0
	for _, b := range mapBytes {
		p, r := sc.mapWork(cls, b)
		work += p/speed + r
	}
	work += float64(reduces) * (cls.ShuffleSeconds + cls.ReduceSeconds/speed) * sc.noiseMean()
	return work
}

// fastestSpeed is the class's speed on the fastest node type whose
// resources hold its map container (0: none does).
func (sc *Scenario) fastestSpeed(cls ClassSpec, since time.Duration) float64 {
	speed := 0.0
	for _, nt := range sc.NodeTypes {
		if nt.MemoryMB < cls.MapMemoryMB || nt.VCores < cls.MapVCores || nt.GPUs < cls.MapGPUs {
			continue
		}
		speed = math.Max(speed, sc.SpeedAt(nt.Name, cls.Name, since))
	}
	return speed
}

func (sc *Scenario) noiseMean() float64 { return math.Exp(sc.NoiseSigma * sc.NoiseSigma / 2) }

// mapWork is a map's processing at speed 1 (times the noise's mean) and
// its node-local read, in seconds: at speed s it needs proc/s + read.
func (sc *Scenario) mapWork(cls ClassSpec, bytes int64) (proc, read float64) {
	block := float64(sc.BlockSizeMB << 20)
	return cls.MapSeconds * float64(bytes) / block * sc.noiseMean(), float64(bytes) / (sc.Bandwidth.NodeLocal * (1 << 20))
}

// TypeUse is what a job's maps used on one node type: their attempts'
// container-seconds (killed ones included) and the least those maps
// needed (MinWork's map term), each map counted under the node type its
// last attempt ran on. Early and EarlyLeast are the part of each of the
// maps whose first attempt started within EarlyWindow of the job's
// submission.
type TypeUse struct{ Seconds, Least, Early, EarlyLeast float64 }

// EarlyWindow is the sidecar's default control cycle (30 s): a map that
// starts this soon after its job's submission may be placed before any
// cycle has seen the job, so no decision about the job chose its node
// type (on an idle cluster the MapReduce AM's maps all start within
// seconds of its own start).
const EarlyWindow = 30 * time.Second

// mapUse splits an app's maps by node type (TypeUse) and sums their work
// at speed 1 and reads (mapWork), from which a bound at another speed
// follows: proc/speed + read.
func (c *Cluster) mapUse(a *app) (use map[string]TypeUse, proc, read float64) {
	cls, _ := c.sc.Class(a.class)
	speed := c.sc.fastestSpeed(cls, a.submit.Sub(c.start))
	use = map[string]TypeUse{}
	for _, t := range a.maps {
		if len(t.attempts) == 0 {
			continue
		}
		early := t.attempts[0].start.Sub(a.submit) <= EarlyWindow
		for _, at := range t.attempts {
			end := at.finish
			if at.state == "RUNNING" || end.IsZero() {
				end = c.now
			}
			u := use[at.node.typ]
			sec := end.Sub(at.start).Seconds()
			u.Seconds += sec
			if early {
				u.Early += sec
			}
			use[at.node.typ] = u
		}
		p, r := c.sc.mapWork(cls, t.bytes)
		proc, read = proc+p, read+r
		if speed > 0 {
			last := t.attempts[len(t.attempts)-1].node.typ
			u := use[last]
			u.Least += p/speed + r
			if early {
				u.EarlyLeast += p/speed + r
			}
			use[last] = u
		}
	}
	return use, proc, read
}
