package decide

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
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
// threshold (act/ratelimit.go), since a 150 s goal cannot wait a 2 min interval.
//
// Two floors at the admin's guarantee (its first-seen share, Seen) hold
// besides the reservations (issue 18): a queue with a running goal job —
// one that cannot meet its goal too, as Polo's utility keeps growing for a
// late job (digest 002 §1.3) — and an idle queue, whose next job (a goal
// job arriving) then starts from its promise, not from the band's floor.
//
// The admin's band minimums (GuaranteeBands) come first of all: every
// planned queue keeps its band's lower end, so a reservation is granted
// from what the minimums leave and a queue's own minimum serves its own
// claims first. Otherwise the band step that follows lifts a queue the
// reservations left below its minimum back to it by taking from every
// queue with room, the earliest deadline's reservation too (polo-a+
// preemption: J4's 60 containers cut to 54 at 1530 s, so it missed).
// Only when the RM preempts (Guard): without preemption, measured on
// hetero-100-tight (seeds 1–2) at main 6be070f, it met 108/115 feasible
// goals where the squeeze met 112/115.
type deadlineReserveStep struct {
	Seen  map[string]SeenValue
	Bands GuaranteeBands
	Guard *PreemptionGuard
}

// minimums are the band minimums set aside first (bandMinimums), when the
// RM preempts; none otherwise.
func (st deadlineReserveStep) minimums(s *decideState, full map[string]float64) map[string]float64 {
	if !st.Guard.rmPreempts(s.Snap) {
		return map[string]float64{}
	}
	return bandMinimums(s, st.Bands, st.Seen, full)
}

func (deadlineReserveStep) Name() string { return "deadline reservations" }

// deadlineClaim is one job's need for containers in its queue's partition.
type deadlineClaim struct {
	Queue    string
	Job      string
	Deadline time.Time
	Needed   int
	// AtRisk: the claim serves a goal at risk; a raise for it is urgent
	// (urgentQueues).
	AtRisk bool
	// Late: the part of a late job's last wave above its queue's
	// guarantee, served from what the other claims leave.
	Late bool
}

func (st deadlineReserveStep) Run(s *decideState) error {
	if len(s.Plan.Queues) == 0 {
		return nil
	}
	full := partitionTotals(s.Parts)
	promised := promisedContainers(s, st.Seen)
	// Goal jobs arriving (arrivingGoalStep) and what running goal jobs
	// hold (goalHoldStep) claim in their EDF turns too.
	claims := append(append(deadlineClaims(s.Deadlines, promised), s.Arriving...), s.Holding...)
	sort.SliceStable(claims, func(i, k int) bool { return claimLess(claims[i], claims[k]) })
	totals := partitionTotals(plannable(s))
	home := map[string]string{}
	for _, qp := range s.Plan.Queues {
		home[qp.Path] = qp.Home
	}
	// An idle queue's promise comes before the reservations: it costs
	// nothing while the queue is idle (its share is lent out), and a goal
	// job arriving there starts from it, as under stock.
	pool := maps.Clone(totals)
	minimums := st.minimums(s, full)
	own := maps.Clone(minimums)
	for q, n := range own {
		pool[home[q]] -= n
	}
	claiming := map[string]bool{}
	for _, c := range claims {
		claiming[c.Queue] = true
	}
	idle := map[string]int{}
	for _, q := range s.Queues {
		// A queue whose goal job has arrived (no demand yet: its AM has
		// not asked) is served by that job's claim, not kept idle.
		if q.Demand == 0 && promised[q.Path] > 0 && !claiming[q.Path] {
			if p, ok := home[q.Path]; ok {
				idle[q.Path] = grant(promised[q.Path], q.Path, p, own, pool)
			}
		}
	}
	held := reserveWithin(claims, home, pool, own)
	// Floors per partition, in percent of the plannable partition (the
	// plan's unit), and the plan's shares lifted to them. An idle queue's
	// promise was set aside before the reservations, so it is held as
	// firmly as they are: not scaled down with the other admin floors
	// (polo-a: J5's queue was cut to 6.8% while idle, 20% promised, so
	// J5 arrived to 8 containers).
	byPart := map[string]map[string]float64{}
	for q, n := range minimums {
		if p := home[q]; totals[p] > 0 {
			if byPart[p] == nil {
				byPart[p] = map[string]float64{}
			}
			byPart[p][q] = 100 * n / totals[p]
		}
	}
	for _, containers := range []map[string]int{idle, held} {
		for q, n := range containers {
			p := home[q]
			if totals[p] <= 0 || n <= 0 {
				continue
			}
			if byPart[p] == nil {
				byPart[p] = map[string]float64{}
			}
			byPart[p][q] = math.Max(byPart[p][q], 100*float64(n)/totals[p])
		}
	}
	for part, adm := range adminFloors(s, st.Seen, full, totals) {
		if byPart[part] == nil {
			byPart[part] = map[string]float64{}
		}
		byPart[part] = mergeFloors(byPart[part], adm)
	}
	for part, floors := range byPart {
		want := map[string]float64{}
		for _, qp := range s.Plan.Queues {
			if v, ok := qp.Capacity[part]; ok {
				want[qp.Path] = v
			}
		}
		lifted := plan.ApplyFloors(want, floors)
		for i := range s.Plan.Queues {
			qp := &s.Plan.Queues[i]
			v, ok := lifted[qp.Path]
			if !ok || v == qp.Capacity[part] {
				continue
			}
			if v > qp.Capacity[part] && held[qp.Path] == 0 {
				qp.Reason = "kept at the admin's guarantee: idle, or running a job with a goal"
			} else if v > qp.Capacity[part] {
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

// promisedContainers are each planned queue's admin guarantee (first-seen
// share) in its home partition, in containers.
func promisedContainers(s *decideState, seen map[string]SeenValue) map[string]int {
	full := partitionTotals(s.Parts)
	promised := map[string]int{}
	for _, qp := range s.Plan.Queues {
		if v, ok := seen[SeenKey(qp.Path, qp.Home)]; ok {
			promised[qp.Path] = int(math.Round(v.AbsShare * full[qp.Home]))
		}
	}
	return promised
}

// deadlineClaims are the running jobs with goals that need containers,
// earliest deadline first (ties by job name). A job that can still meet
// its goal claims what it needs; one that cannot claims its queue's admin
// guarantee in its deadline's turn, and the rest of its last wave
// (lateClaim) only after every other claim (Late).
func deadlineClaims(reports []deadline.QueueReport, promised map[string]int) []deadlineClaim {
	var out []deadlineClaim
	for _, qr := range reports {
		for _, j := range qr.Jobs {
			if j.Deadline == nil {
				continue
			}
			need := j.Needed
			switch j.Verdict {
			case deadline.AtRisk, deadline.OnTrack:
			case deadline.CannotMeet:
				need = promised[j.Queue]
				if wave := lateClaim(j.Remaining, qr.MaxAllowed, need); wave > need {
					out = append(out, deadlineClaim{Queue: j.Queue, Job: j.Name, Deadline: *j.Deadline, Needed: wave - need, Late: true})
				}
			default:
				continue
			}
			if need <= 0 {
				continue
			}
			out = append(out, deadlineClaim{Queue: j.Queue, Job: j.Name, Deadline: *j.Deadline, Needed: need, AtRisk: j.Verdict == deadline.AtRisk})
		}
	}
	sort.SliceStable(out, func(i, k int) bool { return claimLess(out[i], out[k]) })
	return out
}

// lateClaim is the most a job that cannot meet its goal claims
// (containers). Polo's rule 1 (digest 002 §1.3): a job past hope of its
// goal is completed as soon as possible. As soon as possible is its last
// wave: every remaining task (running or not started) at once, when they
// fit its queue's maximum (queueMax); more containers would not finish it
// sooner. A job too big for that gets its queue's admin guarantee
// (promised): Polo's utility keeps growing for a late job, so it keeps
// at least its fair share; so does a job whose remaining tasks or queue
// maximum are unknown (0).
//
// Unlike Polo, the wave above the guarantee is served after the jobs
// that can still meet their goals (deadlineClaims): in its EDF turn it
// cost hetero-100-tight 8 of 341 goals over 6 seeds (324 → 316) for
// 37–40 s less lateness of polo-a's J4 and J5, which stayed late.
func lateClaim(remaining, queueMax, promised int) int {
	if remaining > 0 && queueMax > 0 && remaining <= queueMax {
		return remaining
	}
	return promised
}

// reserveWithin grants claims in order from each queue's home partition
// until the partition's slots (pool) run out: containers held per queue.
// Each queue may also have containers of its own (own: its band minimum,
// set aside from pool, or nil) that serve its claims before the shared
// pool does.
func reserveWithin(claims []deadlineClaim, home map[string]string, pool map[string]float64, own map[string]float64) map[string]int {
	left := maps.Clone(pool)
	mine := maps.Clone(own)
	if mine == nil {
		mine = map[string]float64{}
	}
	held := map[string]int{}
	for _, c := range claims {
		p, planned := home[c.Queue]
		if !planned {
			continue // a queue the plan leaves alone keeps its guarantee
		}
		if g := grant(c.Needed, c.Queue, p, mine, left); g > 0 {
			held[c.Queue] += g
		}
	}
	return held
}

// grant takes up to want whole containers for queue q, from its own
// containers first, then from its partition p's pool (both rounded down
// together), and returns how many it took.
func grant(want int, q, p string, own, pool map[string]float64) int {
	fromOwnMax := math.Max(0, own[q])
	g := min(want, int(math.Floor(fromOwnMax+math.Max(0, pool[p])+1e-9)))
	if g <= 0 {
		return 0
	}
	fromOwn := math.Min(float64(g), fromOwnMax)
	own[q] -= fromOwn
	pool[p] -= float64(g) - fromOwn
	return g
}

// bandMinimums are the containers (fractional) of each planned queue's
// band minimum in its home partition (GuaranteeBands' lower end, of the
// first-seen parent share): what the band step would lift the queue to
// anyway.
func bandMinimums(s *decideState, bands GuaranteeBands, seen map[string]SeenValue, full map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for _, qp := range s.Plan.Queues {
		v, ok := seen[SeenKey(qp.Path, qp.Home)]
		if !ok || v.Share <= 0 {
			continue
		}
		lo := BandOfSeen(bands.For(qp.Path), v).Lo
		parentAbs := v.AbsShare / (v.Share / 100)
		if n := lo / 100 * parentAbs * full[qp.Home]; n > 0 {
			out[qp.Path] = n
		}
	}
	return out
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

// adminFloors are, per partition in percent of the plannable slots, the
// admin's guarantee of each planned queue that is idle or runs a job with
// a goal (whatever its verdict).
func adminFloors(s *decideState, seen map[string]SeenValue, full, plannableSlots map[string]float64) map[string]map[string]float64 {
	keep := queuesWithGoals(s.Deadlines)
	for _, q := range s.Queues {
		if q.Demand == 0 {
			keep[q.Path] = true
		}
	}
	out := map[string]map[string]float64{}
	for _, qp := range s.Plan.Queues {
		if !keep[qp.Path] {
			continue
		}
		for part := range qp.Capacity {
			v, ok := seen[SeenKey(qp.Path, part)]
			if !ok || plannableSlots[part] <= 0 {
				continue
			}
			f := min(100, 100*v.AbsShare*full[part]/plannableSlots[part])
			if f <= 0 {
				continue
			}
			if out[part] == nil {
				out[part] = map[string]float64{}
			}
			out[part][qp.Path] = f
		}
	}
	return out
}

// mergeFloors is each queue's larger floor, the reservations' first: when
// the two sets together ask for more than the partition, the admin floors'
// part above the reservations is scaled down to fit (a reservation made
// EDF is never undone by a floor).
func mergeFloors(held, admin map[string]float64) map[string]float64 {
	out := map[string]float64{}
	maps.Copy(out, held)
	sum, extra := 0.0, map[string]float64{}
	for _, v := range held {
		sum += v
	}
	total := 0.0
	for q, v := range admin {
		if e := v - held[q]; e > 0 {
			extra[q] = e
			total += e
		}
	}
	scale := 1.0
	if room := 100 - sum; total > room {
		scale = max(0, room) / total
	}
	for q, e := range extra {
		out[q] = held[q] + e*scale
	}
	return out
}
