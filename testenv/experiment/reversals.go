package experiment

import (
	"math"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// reversals counts, per queue, the applied changes that undid the previous
// applied change of the same property (issue 32, no flapping): a capacity
// raised then lowered, a home moved and moved back. Every steered run
// counts them (Result.Reversals), so every scenario's rows can say how
// often a queue flapped per hour.
type reversals struct {
	last  map[string]float64 // queue + property → sign of its last change (+1, -1); homes: 0 + value
	home  map[string]string  // queue → value the home was moved from last
	count map[string]int
}

func newReversals() *reversals {
	return &reversals{last: map[string]float64{}, home: map[string]string{}, count: map[string]int{}}
}

// observe notes the changes of an applied plan.
func (r *reversals) observe(p *plan.Plan) {
	if p == nil {
		return
	}
	flipped := map[string]bool{} // a queue counts once per plan
	defer func() {
		for q := range flipped {
			r.count[q]++
		}
	}()
	for _, c := range p.Changes {
		if c.Queue == "" {
			continue
		}
		key := c.Queue + "\x00" + c.Property
		if c.Property == "default-node-label-expression" {
			if from, ok := r.home[c.Queue]; ok && from == c.To {
				flipped[c.Queue] = true
			}
			r.home[c.Queue] = c.From
			continue
		}
		if !strings.HasSuffix(c.Property, "capacity") {
			continue
		}
		from, ok1 := capacityNumber(c.From)
		to, ok2 := capacityNumber(c.To)
		if !ok1 || !ok2 || math.Abs(to-from) < 1e-9 {
			continue
		}
		sign := math.Copysign(1, to-from)
		if prev, ok := r.last[key]; ok && prev != sign {
			flipped[c.Queue] = true
		}
		r.last[key] = sign
	}
}

// capacityNumber is a capacity's number: a percentage, a weight, or an
// absolute value's memory.
func capacityNumber(raw string) (float64, bool) {
	v, err := schedconf.ParseCapacity(raw)
	if err != nil {
		return 0, false
	}
	switch v.Mode {
	case schedconf.ModePercentage:
		return v.Percent, true
	case schedconf.ModeWeight:
		return v.Weight, true
	case schedconf.ModeAbsolute:
		return float64(v.Absolute["memory"]), true
	}
	return 0, false
}

// ReversalsPerQueueHour is the most reversals any queue made per hour of
// the run (the makespan, at least an hour), and the mean over the queues
// the run changed.
func (r Result) ReversalsPerQueueHour() (worst, mean float64) {
	hours := math.Max(r.Makespan.Hours(), 1)
	if r.Makespan == 0 {
		hours = math.Max(float64(r.Cycles)*(30*time.Second).Hours(), 1)
	}
	n := 0
	for _, c := range r.Reversals {
		worst = math.Max(worst, float64(c)/hours)
		mean += float64(c) / hours
		n++
	}
	if r.ChangedQueues > 0 {
		n = r.ChangedQueues
	}
	if n > 0 {
		mean /= float64(n)
	}
	return worst, mean
}
