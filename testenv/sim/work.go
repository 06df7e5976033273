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
	speed := 0.0
	for _, nt := range sc.NodeTypes {
		if nt.MemoryMB < cls.MapMemoryMB || nt.VCores < cls.MapVCores || nt.GPUs < cls.MapGPUs {
			continue
		}
		speed = math.Max(speed, sc.SpeedAt(nt.Name, class, since))
	}
	if speed == 0 {
		return 0
	}
	mean := math.Exp(sc.NoiseSigma * sc.NoiseSigma / 2)
	block := float64(sc.BlockSizeMB << 20)
	work := 0.0
	for _, b := range mapBytes {
		work += cls.MapSeconds*float64(b)/block/speed*mean + float64(b)/(sc.Bandwidth.NodeLocal*(1<<20))
	}
	work += float64(reduces) * (cls.ShuffleSeconds + cls.ReduceSeconds/speed) * mean
	return work
}
