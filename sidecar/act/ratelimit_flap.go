package act

import (
	"fmt"
	"math"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Defaults of the flap guard (issue 32: the demo report counted 12 of 39
// changes that undid the previous one). A change that undoes one written
// less than DefaultFlapWindow ago (a capacity raised then lowered, a home
// moved and moved back) needs a predicted ΣPS gain of at least
// DefaultFlapGainPercent — five times min_gain_percent's default — unless
// it serves a deadline at risk or restores a queue's guarantee (the rate
// limit's stated exceptions).
const (
	DefaultFlapWindow      = 15 * time.Minute
	DefaultFlapGainPercent = 10.0
)

// flapMark is the last written change of one queue property.
type flapMark struct {
	at   time.Time
	sign float64 // +1 raised, -1 lowered; 0 a home, with from
	from string  // a home's value before the change
}

// flapWindow and flapGain are the configured values or their defaults.
func (r *RateLimit) flapWindow() time.Duration {
	if r.FlapWindow == 0 {
		return DefaultFlapWindow
	}
	return r.FlapWindow
}

func (r *RateLimit) flapGain() float64 {
	if r.FlapGainPercent == 0 {
		return DefaultFlapGainPercent
	}
	return r.FlapGainPercent
}

// reversal names the first change of the plan that undoes one written
// within the window ("" when none). Caller holds r.mu.
func (r *RateLimit) reversal(now time.Time, p *plan.Plan) string {
	w := r.flapWindow()
	if w < 0 || p == nil {
		return ""
	}
	for _, c := range p.Changes {
		m, ok := r.marks[c.Queue+"\x00"+c.Property]
		if !ok || c.Queue == "" || now.Sub(m.at) >= w {
			continue
		}
		if c.Property == "default-node-label-expression" {
			if m.sign == 0 && m.from == c.To {
				return fmt.Sprintf("%s's home back to %q %s after it moved", c.Queue, c.To, now.Sub(m.at).Round(time.Second))
			}
			continue
		}
		if s, ok := changeSign(c); ok && s != m.sign {
			return fmt.Sprintf("%s %s %s → %s undoes the change %s ago", c.Queue, c.Property, c.From, c.To, now.Sub(m.at).Round(time.Second))
		}
	}
	return ""
}

// RecordChanges notes the changes of a plan written at now, for the flap
// guard.
func (r *RateLimit) RecordChanges(now time.Time, p *plan.Plan) {
	if r == nil || p == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.marks == nil {
		r.marks = map[string]flapMark{}
	}
	for _, c := range p.Changes {
		if c.Queue == "" {
			continue
		}
		key := c.Queue + "\x00" + c.Property
		if c.Property == "default-node-label-expression" {
			r.marks[key] = flapMark{at: now, from: c.From}
			continue
		}
		if s, ok := changeSign(c); ok {
			r.marks[key] = flapMark{at: now, sign: s}
		}
	}
}

// changeSign is +1 for a raise, -1 for a cut (percentages, weights and
// absolute resources by memory); false when either side does not parse or
// nothing moves.
func changeSign(c plan.Change) (float64, bool) {
	from, ok1 := capacityNumber(c.From)
	to, ok2 := capacityNumber(c.To)
	if !ok1 || !ok2 || math.Abs(to-from) < 1e-9 {
		return 0, false
	}
	return math.Copysign(1, to-from), true
}

// capacityNumber is a capacity's number: a percentage, a weight, or an
// absolute value's memory.
func capacityNumber(raw string) (float64, bool) {
	if v, ok := relativeCapacity(raw); ok {
		return v, true
	}
	v, err := schedconf.ParseCapacity(raw)
	if err != nil || v.Mode != schedconf.ModeAbsolute {
		return 0, false
	}
	return float64(v.Absolute["memory"]), true
}
