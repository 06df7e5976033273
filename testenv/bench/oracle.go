package main

import (
	"fmt"
	"math"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// fluidJob is one job of a two-phase fluid model: Work in slot-seconds at
// speed 1, and its true speed per node type.
type fluidJob struct {
	Name  string
	Work  float64
	Speed map[string]float64
}

// fluidTimes runs a fluid model of jobs that all arrive at time 0 on slots
// per node type: alloc says, for the unfinished jobs, the share of each
// type's slots each gets; at every completion the survivors are re-allocated.
// It returns each job's completion time. Reduces, AM containers and task
// granularity are left out on purpose: the model gives ratios between
// allocations, which the benchmark applies to measured stock times.
func fluidTimes(jobs []fluidJob, slots map[string]float64, alloc func(active []int) map[string][]float64) []float64 {
	left := make([]float64, len(jobs))
	done := make([]float64, len(jobs))
	for i, j := range jobs {
		left[i] = j.Work
	}
	now := 0.0
	for {
		var active []int
		for i := range jobs {
			if left[i] > 1e-9 {
				active = append(active, i)
			}
		}
		if len(active) == 0 {
			return done
		}
		share := alloc(active)
		rate := make([]float64, len(active))
		for t, n := range slots {
			for k, i := range active {
				rate[k] += n * share[t][k] * speedOf(jobs[i], t)
			}
		}
		step := math.Inf(1)
		for k, i := range active {
			if rate[k] > 0 {
				step = math.Min(step, left[i]/rate[k])
			}
		}
		if math.IsInf(step, 1) {
			panic("fluid model: no job progresses")
		}
		now += step
		for k, i := range active {
			left[i] -= rate[k] * step
			if left[i] <= 1e-9 {
				done[i] = now
			}
		}
	}
}

func speedOf(j fluidJob, t string) float64 {
	if s, ok := j.Speed[t]; ok {
		return s
	}
	return 1
}

// slotFair splits every type's slots equally among the active jobs: the
// stock Capacity Scheduler with equal queues and elastic borrowing.
func slotFair(slots map[string]float64) func([]int) map[string][]float64 {
	return func(active []int) map[string][]float64 {
		out := map[string][]float64{}
		for t := range slots {
			for range active {
				out[t] = append(out[t], 1/float64(len(active)))
			}
		}
		return out
	}
}

// maxProgressShare gives each type's slots to the active job whose progress
// share (Lee eq. 4.1) gains most from them — its rate there over its rate on
// every slot of the cluster — ties split equally. This is the allocation of
// the ΣPS upper bound (digest 000 §1.3), the oracle the sidecar steers to.
func maxProgressShare(jobs []fluidJob, slots map[string]float64) func([]int) map[string][]float64 {
	return func(active []int) map[string][]float64 {
		out := map[string][]float64{}
		for t := range slots {
			best, winners := -1.0, []int{}
			for k, i := range active {
				total := 0.0
				for u, n := range slots {
					total += n * speedOf(jobs[i], u)
				}
				g := speedOf(jobs[i], t) / total
				switch {
				case g > best*(1+1e-9):
					best, winners = g, []int{k}
				case g >= best*(1-1e-9):
					winners = append(winners, k)
				}
			}
			out[t] = make([]float64, len(active))
			for _, k := range winners {
				out[t][k] = 1 / float64(len(winners))
			}
		}
		return out
	}
}

// oracleRatios computes, for a scenario whose jobs arrive together, each
// job's completion time under the ΣPS-maximising allocation relative to
// slot-fair sharing, from the scenario's true speeds and work.
func oracleRatios(scenario string) (map[string]float64, error) {
	sc, err := sim.LoadScenario(scenario)
	if err != nil {
		return nil, err
	}
	classes := map[string]sim.ClassSpec{}
	for _, c := range sc.Classes {
		classes[c.Name] = c
	}
	var jobs []fluidJob
	slotMem := int64(0)
	for _, j := range sc.Jobs {
		c, ok := classes[j.Class]
		if !ok {
			return nil, fmt.Errorf("job %s: unknown class %s", j.Name, j.Class)
		}
		if j.At != sc.Jobs[0].At {
			return nil, fmt.Errorf("oracle: job %s does not arrive with the others", j.Name)
		}
		jobs = append(jobs, fluidJob{Name: j.Name, Work: float64(j.Maps) * c.MapSeconds, Speed: c.Speed})
		slotMem = c.MapMemoryMB
	}
	slots := map[string]float64{}
	for _, nt := range sc.NodeTypes {
		if nt.Name == "am" {
			continue // lee-toy's node for AM containers (1 GB each) is not in the paper's instance
		}
		slots[nt.Name] += float64(nt.Count) * float64(nt.MemoryMB/slotMem)
	}
	fair := fluidTimes(jobs, slots, slotFair(slots))
	best := fluidTimes(jobs, slots, maxProgressShare(jobs, slots))
	out := map[string]float64{}
	for i, j := range jobs {
		out[j.Name] = best[i] / fair[i]
	}
	return out, nil
}
