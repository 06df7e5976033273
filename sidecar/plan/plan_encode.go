package plan

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// shareOf is a queue's configured capacity in a partition as a percentage
// of its parent, in the group's encoding: percentage as written; weight
// w/Σ sibling weights; absolute its memory over the parent's.
func shareOf(q *schedconf.Queue, part string, enc Encoding) float64 {
	v, ok := q.Capacity[part]
	if !ok {
		return 0
	}
	switch enc.Mode {
	case schedconf.ModeWeight:
		if v.Mode != schedconf.ModeWeight || enc.WeightSum <= 0 {
			return 0
		}
		return 100 * v.Weight / enc.WeightSum
	case schedconf.ModeAbsolute:
		if v.Mode != schedconf.ModeAbsolute || enc.ParentMemoryMB <= 0 {
			return 0
		}
		return 100 * float64(v.Absolute["memory"]) / float64(enc.ParentMemoryMB)
	default:
		if v.Mode != schedconf.ModePercentage {
			return 0
		}
		return v.Percent
	}
}

// keepInBands: the step limit moves each capacity part of the way from
// current to the (banded) target, which stays inside a band when current
// is inside it. A queue whose current value lies outside its band (set by
// hand, or before the band existed) would be written outside it: the
// group then goes straight to values inside every band, with the same sum.
func keepInBands(next, current map[string]float64, targets map[string]QueueTarget, part string) map[string]float64 {
	bands := map[string]Band{}
	outside := false
	for q, v := range next {
		b, ok := targets[q].Bands[part]
		if !ok {
			if v == current[q] {
				b = Band{v, v} // a sibling the plan does not move
			} else {
				b = Band{0, 100}
			}
		}
		bands[q] = b
		if !b.Contains(v) {
			outside = true
		}
	}
	if !outside {
		return next
	}
	// Shrink by a hundredth so rounding to two decimals stays inside.
	inner := map[string]Band{}
	sum := 0.0
	for q, b := range bands {
		lo, hi := b.Lo+0.01, b.Hi-0.01
		if lo > hi {
			lo, hi = b.Lo, b.Hi
		}
		inner[q] = Band{lo, hi}
		sum += next[q]
	}
	fitted, ok := FitBands(next, inner)
	if !ok {
		return current // cannot fit: nothing moves
	}
	return roundToSum(fitted, Round2(sum))
}

// encode renders a group's next shares in its own mode (sameParent: the
// parent's resources are not moved by this plan): percentages as
// written; weights scaled to the siblings' current weight sum (so bands
// on shares are bands on weights), rounded to hundredths keeping the sum;
// absolute resources as share × the parent's memory and vcores, other
// resource types kept as configured.
func encode(enc Encoding, next, current map[string]float64, parent *schedconf.Queue, part string, sameParent bool) map[string]string {
	out := map[string]string{}
	switch enc.Mode {
	case schedconf.ModeWeight:
		raw := map[string]float64{}
		for q, v := range next {
			raw[q] = v / 100 * enc.WeightSum
		}
		for q, w := range roundToSum(raw, Round2(enc.WeightSum)) {
			out[q] = strconv.FormatFloat(w, 'f', -1, 64) + "w"
		}
	case schedconf.ModeAbsolute:
		for _, c := range parent.Children {
			v, ok := next[c.Path]
			if !ok {
				continue
			}
			if cv, has := c.Capacity[part]; has && sameParent && v == current[c.Path] {
				out[c.Path] = cv.Raw // unchanged: no rounding churn
				continue
			}
			res := map[string]int64{}
			if cv, ok := c.Capacity[part]; ok && cv.Mode == schedconf.ModeAbsolute {
				for k, n := range cv.Absolute {
					res[k] = n
				}
			}
			res["memory"] = int64(math.Floor(v / 100 * float64(enc.ParentMemoryMB)))
			res["vcores"] = int64(math.Floor(v / 100 * float64(enc.ParentVCores)))
			out[c.Path] = formatAbsolute(res)
		}
	default:
		for q, v := range next {
			out[q] = FormatPercent(v)
		}
	}
	return out
}

// formatAbsolute writes [memory=..,vcores=..,others sorted].
func formatAbsolute(res map[string]int64) string {
	keys := make([]string, 0, len(res))
	for k := range res {
		if k != "memory" && k != "vcores" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := []string{"memory=" + strconv.FormatInt(res["memory"], 10), "vcores=" + strconv.FormatInt(res["vcores"], 10)}
	for _, k := range keys {
		parts = append(parts, k+"="+strconv.FormatInt(res[k], 10))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// nextParent: absolute children are written as shares of their parent's
// resources as this plan leaves them (groups are planned parents first,
// so a parent moved by the plan is already in desired), keeping the
// children's sum within the parent and their bands on shares of it.
func nextParent(enc Encoding, desired schedconf.Conf, parent, part string) Encoding {
	if enc.Mode != schedconf.ModeAbsolute || parent == "root" {
		return enc
	}
	v, err := schedconf.ParseCapacity(desired[schedconf.Key(parent, CapacityProp(part))])
	if err != nil || v.Mode != schedconf.ModeAbsolute || v.Absolute["memory"] <= 0 {
		return enc
	}
	enc.ParentMemoryMB, enc.ParentVCores = v.Absolute["memory"], v.Absolute["vcores"]
	return enc
}
