package schedconf

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseCapacity parses a capacity or maximum-capacity value: a percentage
// ("50", "12.5"), a weight ("2w"), or an absolute resource
// ("[memory=10240,vcores=12,yarn.io/gpu=2]") — CapacityScheduler.md,
// "Queue Properties"; CapacitySchedulerConfiguration.WEIGHT_SUFFIX.
func ParseCapacity(raw string) (CapacityValue, error) {
	s := strings.TrimSpace(raw)
	v := CapacityValue{Raw: raw}
	switch {
	case s == "":
		return v, fmt.Errorf("empty capacity value")
	case strings.HasPrefix(s, "["):
		if !strings.HasSuffix(s, "]") {
			return v, fmt.Errorf("capacity %q: absolute resource must end with ]", raw)
		}
		v.Mode = ModeAbsolute
		v.Absolute = map[string]int64{}
		body := strings.TrimSpace(s[1 : len(s)-1])
		if body == "" {
			return v, nil
		}
		for _, kv := range strings.Split(body, ",") {
			k, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if !ok {
				return v, fmt.Errorf("capacity %q: %q is not name=value", raw, kv)
			}
			k = strings.TrimSpace(k)
			if k == "memory-mb" {
				k = "memory"
			}
			n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
			if err != nil || n < 0 {
				return v, fmt.Errorf("capacity %q: %s=%q is not a non-negative integer", raw, k, val)
			}
			v.Absolute[k] = n
		}
	case strings.HasSuffix(s, "w"):
		w, err := strconv.ParseFloat(strings.TrimSuffix(s, "w"), 64)
		if err != nil || w < 0 {
			return v, fmt.Errorf("capacity %q: weight is not a non-negative number", raw)
		}
		v.Mode, v.Weight = ModeWeight, w
	default:
		p, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return v, fmt.Errorf("capacity %q is not a percentage, weight (2w) or absolute resource ([memory=...,vcores=...])", raw)
		}
		v.Mode, v.Percent = ModePercentage, p
	}
	return v, nil
}

// Key is the full property name of a queue-relative property.
func Key(queuePath, prop string) string { return Prefix + queuePath + "." + prop }

// Clone returns a copy of c.
func (c Conf) Clone() Conf {
	out := make(Conf, len(c))
	for k, v := range c {
		out[k] = v
	}
	return out
}

// queueList splits a `queues` property.
func queueList(v string) []string {
	var out []string
	for _, q := range strings.Split(v, ",") {
		if q = strings.TrimSpace(q); q != "" {
			out = append(out, q)
		}
	}
	return out
}

// labelList splits an accessible-node-labels property.
func labelList(v string) []string {
	var out []string
	for _, l := range strings.Split(v, ",") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
