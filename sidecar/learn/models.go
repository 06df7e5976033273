package learn

import (
	"slices"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/deadline"
)

// ModelsFromSamples fits each class's phase model (Lee eq. 5.1) from the
// durable history: map durations, first/second-wave shuffles and reduces.
// Durations are pooled across node types (the model is the class's mix as
// it ran); classes without two map samples get no model.
func ModelsFromSamples(all []calibrate.Sample) map[string]deadline.PhaseModel {
	by := map[string]*deadline.Samples{}
	jobs := map[string]map[string][2]float64{}
	for _, s := range all {
		ds := by[s.Class]
		if ds == nil {
			ds = &deadline.Samples{}
			by[s.Class] = ds
			jobs[s.Class] = map[string][2]float64{}
		}
		if s.IsMap() {
			ds.Map = append(ds.Map, s.Elapsed.Seconds())
		} else {
			ds.Reduce = append(ds.Reduce, s.Elapsed.Seconds())
			if s.NodeType != "" {
				if ds.ReduceOn == nil {
					ds.ReduceOn = map[string][]float64{}
				}
				ds.ReduceOn[s.NodeType] = append(ds.ReduceOn[s.NodeType], s.Elapsed.Seconds())
			}
			if s.FirstWave {
				ds.Shuffle1 = append(ds.Shuffle1, s.Shuffle.Seconds())
			} else {
				ds.Shuffle2 = append(ds.Shuffle2, s.Shuffle.Seconds())
			}
		}
		if s.JobMaps > 0 {
			jobs[s.Class][s.JobID] = [2]float64{float64(s.JobMaps), s.JobElapsed.Seconds()}
		}
	}
	mapsByJob := map[string]map[string][]float64{}
	reducesByJob := map[string]map[string]int{}
	for _, s := range all {
		if !s.IsMap() {
			if reducesByJob[s.Class] == nil {
				reducesByJob[s.Class] = map[string]int{}
			}
			reducesByJob[s.Class][s.JobID]++
			continue
		}
		if mapsByJob[s.Class] == nil {
			mapsByJob[s.Class] = map[string][]float64{}
		}
		mapsByJob[s.Class][s.JobID] = append(mapsByJob[s.Class][s.JobID], s.Elapsed.Seconds())
	}
	out := map[string]deadline.PhaseModel{}
	for class, ds := range by {
		for _, d := range mapsByJob[class] {
			ds.MapsByJob = append(ds.MapsByJob, d)
		}
		for _, j := range jobs[class] {
			ds.Jobs = append(ds.Jobs, j)
		}
		if m, ok := ds.Model(); ok {
			m.RunMaps, m.RunReduces = runSize(jobs[class], reducesByJob[class])
			out[class] = m
		}
	}
	return out
}

// runSize is the median maps and reduces per run of a class's history
// (0 when unknown). Maps come from each sample's JobMaps (the whole run's
// count); reduces from the reduce samples per run, a lower bound when the
// history holds a sample of a run's tasks.
func runSize(jobs map[string][2]float64, reduces map[string]int) (maps, reds int) {
	var m []int
	for _, j := range jobs {
		m = append(m, int(j[0]))
	}
	var r []int
	for id := range jobs {
		r = append(r, reduces[id])
	}
	return medianInt(m), medianInt(r)
}

func medianInt(x []int) int {
	if len(x) == 0 {
		return 0
	}
	slices.Sort(x)
	return x[len(x)/2]
}
