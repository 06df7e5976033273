package calibrate

import (
	"sort"
	"time"
)

// JobRecord is one finished MapReduce job as its samples describe it: the
// workload a replay of the history plays back (deadline/replay).
type JobRecord struct {
	JobID, Queue, Class string
	Start               time.Time
	Maps, Reduces       int
	// MapSeconds are the job's map attempts' seconds summed per node type,
	// MapCount how many; ReduceSeconds a reduce's mean seconds (shuffle,
	// merge and reduce).
	MapSeconds    map[string]float64
	MapCount      map[string]int
	ReduceSeconds float64
}

// Jobs are the jobs of the samples that name their queue and start
// (samples written before those were kept are left out), in start order.
func Jobs(all []Sample) []JobRecord {
	byID := map[string]*JobRecord{}
	var reduces map[string]int = map[string]int{}
	for _, s := range all {
		if s.Queue == "" || s.JobStart.IsZero() || s.JobID == "" {
			continue
		}
		r := byID[s.JobID]
		if r == nil {
			r = &JobRecord{JobID: s.JobID, Queue: s.Queue, Class: s.Class, Start: s.JobStart, Maps: s.JobMaps,
				MapSeconds: map[string]float64{}, MapCount: map[string]int{}}
			byID[s.JobID] = r
		}
		if s.IsMap() {
			r.MapSeconds[s.NodeType] += s.Elapsed.Seconds()
			r.MapCount[s.NodeType]++
			continue
		}
		reduces[s.JobID]++
		r.ReduceSeconds += (s.Shuffle + s.Elapsed).Seconds()
	}
	out := make([]JobRecord, 0, len(byID))
	for id, r := range byID {
		if n := reduces[id]; n > 0 {
			r.Reduces = n
			r.ReduceSeconds /= float64(n)
		}
		if r.Maps == 0 {
			for _, n := range r.MapCount {
				r.Maps += n
			}
		}
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Start.Equal(out[j].Start) {
			return out[i].Start.Before(out[j].Start)
		}
		return out[i].JobID < out[j].JobID
	})
	return out
}
