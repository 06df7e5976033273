package sidecar

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
)

// deadlineReserveStep holds, in each queue's planned guarantee, the
// containers its jobs with goals need to meet them (the report's Needed:
// the fewest containers that meet the goal at the configured confidence),
// earliest deadline first, before the PS-fair plan divides the rest.
//
// Polo's Adaptive Scheduler (digest 002 §1.3) gives each job the slots its
// goal needs (eq. 1, s_req) and only the surplus fairly; YARN has no
// per-job slot lever across queues, so the lever here is the queue's
// guaranteed capacity: the Capacity Scheduler hands freed containers to
// the queue furthest below its guarantee, so a queue guaranteed its jobs'
// Needed gets them as containers free, without killing any (as Polo). When
// the partition cannot hold every job's need, earlier deadlines are served
// first (EDF); a job that cannot meet its goal even with its whole queue
// claims nothing (its containers would only make another job miss too).
// The guarantee step that follows keeps every queue inside the admin's
// bands, so a reservation never takes a team below its promise.
//
// A queue whose guarantee the step raises for a job at risk is marked
// urgent (s.Urgent): its plan may pass the rate limit's interval and gain
// threshold (ratelimit.go), since a 150 s goal cannot wait a 2 min interval.
type deadlineReserveStep struct{}

func (deadlineReserveStep) Name() string { return "deadline reservations" }

// deadlineClaim is one job's need for containers in its queue's partition.
type deadlineClaim struct {
	Queue    string
	Job      string
	Deadline time.Time
	Needed   int
	AtRisk   bool
}

func (deadlineReserveStep) Run(s *decideState) error {
	claims := deadlineClaims(s.Deadlines)
	if len(claims) == 0 || len(s.Plan.Queues) == 0 {
		return nil
	}
	totals := map[string]float64{}
	for _, p := range plannable(s) {
		for _, n := range p.Slots {
			totals[p.Name] += float64(n)
		}
	}
	home := map[string]string{}
	for _, qp := range s.Plan.Queues {
		home[qp.Path] = qp.Home
	}
	held := reserveEDF(claims, home, totals)
	// Floors per partition, in percent of the plannable partition (the
	// plan's unit), and the plan's shares lifted to them.
	byPart := map[string]map[string]float64{}
	for q, n := range held {
		p := home[q]
		if totals[p] <= 0 || n <= 0 {
			continue
		}
		if byPart[p] == nil {
			byPart[p] = map[string]float64{}
		}
		byPart[p][q] = 100 * float64(n) / totals[p]
	}
	for part, floors := range byPart {
		want := map[string]float64{}
		for _, qp := range s.Plan.Queues {
			if v, ok := qp.Capacity[part]; ok {
				want[qp.Path] = v
			}
		}
		lifted := applyFloors(want, floors)
		for i := range s.Plan.Queues {
			qp := &s.Plan.Queues[i]
			v, ok := lifted[qp.Path]
			if !ok || v == qp.Capacity[part] {
				continue
			}
			if v > qp.Capacity[part] {
				qp.Reason = fmt.Sprintf("holds %d containers for its jobs' deadlines (earliest deadline first; Polo's s_req)", held[qp.Path])
			}
			qp.Capacity[part] = v
		}
	}
	s.Urgent = urgentQueues(s, claims, held, home, totals)
	for _, q := range slices.Sorted(maps.Keys(held)) {
		s.Notes = append(s.Notes, fmt.Sprintf("queue %s: %d containers held for deadlines", q, held[q]))
	}
	return nil
}

// deadlineClaims are the running jobs with goals that can still meet them
// and need containers, earliest deadline first (ties by job name).
func deadlineClaims(reports []deadline.QueueReport) []deadlineClaim {
	var out []deadlineClaim
	for _, qr := range reports {
		for _, j := range qr.Jobs {
			if j.Deadline == nil || j.Needed <= 0 {
				continue
			}
			if j.Verdict != deadline.AtRisk && j.Verdict != deadline.OnTrack {
				continue
			}
			out = append(out, deadlineClaim{Queue: j.Queue, Job: j.Name, Deadline: *j.Deadline, Needed: j.Needed, AtRisk: j.Verdict == deadline.AtRisk})
		}
	}
	sort.SliceStable(out, func(i, k int) bool {
		if !out[i].Deadline.Equal(out[k].Deadline) {
			return out[i].Deadline.Before(out[k].Deadline)
		}
		return out[i].Job < out[k].Job
	})
	return out
}

// reserveEDF grants claims in order from each queue's home partition until
// the partition's slots run out: containers held per queue.
func reserveEDF(claims []deadlineClaim, home map[string]string, totals map[string]float64) map[string]int {
	left := map[string]int{}
	for p, n := range totals {
		left[p] = int(n)
	}
	held := map[string]int{}
	for _, c := range claims {
		p, planned := home[c.Queue]
		if !planned {
			continue // a queue the plan leaves alone keeps its guarantee
		}
		g := min(c.Needed, left[p])
		if g <= 0 {
			continue
		}
		held[c.Queue] += g
		left[p] -= g
	}
	return held
}

// urgentQueues are the queues whose reservation serves a job at risk and
// is above the queue's live guarantee by at least one container: their
// raise should not wait for the rate limit's interval.
func urgentQueues(s *decideState, claims []deadlineClaim, held map[string]int, home map[string]string, totals map[string]float64) map[string]string {
	out := map[string]string{}
	for _, c := range claims {
		if !c.AtRisk || held[c.Queue] == 0 || out[c.Queue] != "" {
			continue
		}
		leaf, ok := s.Tree.ByPath[c.Queue]
		if !ok {
			continue
		}
		p := home[c.Queue]
		live := leaf.AbsCapacity[p] * totals[p]
		if float64(held[c.Queue]) >= live+1 {
			out[c.Queue] = fmt.Sprintf("job %s is at risk of missing its deadline (%s): its queue needs %d containers, guaranteed %.0f", c.Job, c.Deadline.UTC().Format(time.RFC3339), held[c.Queue], live)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
