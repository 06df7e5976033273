package replay

import (
	"math/rand"
	"slices"
	"time"
)

// One day of history is one draw of the arrivals. Whether two queues'
// bursts overlap decides whether routing both to a small partition harms
// one of them, and that overlap changes from day to day: held-out cluster
// 1005 (run seed 3) was judged on a warm-up day where bi's and etl's jobs
// mostly missed each other, and bi's class ran 2.16× slower than stock on
// the judged day where they met. Replayed with the true speeds on eight
// draws of that cluster's day, the same route slowed bi's class on six.
// OtherDays gives the replay more draws to judge on, made from the one it
// has: each job's arrival moved by up to its own stream's mean gap, so the
// streams keep their rates, mixes and phases and only their overlaps move.

// MaxShift caps how far OtherDays moves an arrival: a stream of a few jobs
// a day has gaps of hours, and moving its jobs that far would change the
// day's mix, not only its overlaps.
const MaxShift = 15 * time.Minute

// OtherDays returns n variants of jobs (a day's workload): each job's
// submit time moved uniformly within ± the mean gap between its stream's
// arrivals (its queue and class; capped at MaxShift), never before the
// window's start. Seeded: the same jobs and seed give the same days.
func OtherDays(jobs []Job, n int, seed int64) [][]Job {
	type stream struct{ queue, class string }
	times := map[stream][]time.Duration{}
	for _, j := range jobs {
		s := stream{j.Queue, j.Class}
		times[s] = append(times[s], j.Submit)
	}
	shift := map[stream]time.Duration{}
	for s, ts := range times {
		if len(ts) < 2 {
			shift[s] = MaxShift
			continue
		}
		lo, hi := slices.Min(ts), slices.Max(ts)
		shift[s] = min((hi-lo)/time.Duration(len(ts)-1), MaxShift)
	}
	rng := rand.New(rand.NewSource(seed))
	out := make([][]Job, n)
	for k := range out {
		day := slices.Clone(jobs)
		for i := range day {
			w := shift[stream{day[i].Queue, day[i].Class}]
			day[i].Submit += time.Duration((2*rng.Float64() - 1) * float64(w))
			if day[i].Submit < 0 {
				day[i].Submit = 0
			}
		}
		out[k] = day
	}
	return out
}

// Pooled is the results of several days as one: each class's completions
// of every day together, so its Mean is the mean over the days' jobs.
func Pooled(days ...Result) Result {
	out := Result{ByClass: map[string][]float64{}}
	for _, d := range days {
		for c, xs := range d.ByClass {
			out.ByClass[c] = append(out.ByClass[c], xs...)
		}
	}
	return out
}
