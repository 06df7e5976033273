package calibrate

import (
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
)

// Node types are the unit the CR table learns (Lee §4.2): nodes no
// node_types rule names are grouped by identical resources and partition,
// so two CPU generations of one shape are one type and the sidecar never
// sees that one runs a class 1.5× faster (issue 35). TypeSplits finds that
// in the history: within a type, the hosts' median rates for a class fall
// into two groups with a clear gap between them. It only says so; the
// admin describes the node types (node_types in the config).

// SplitOptions tune TypeSplits; zero values take the defaults.
type SplitOptions struct {
	// MinPerHost is the map samples a host needs for its median (default 3).
	MinPerHost int
	// MinHosts is the hosts each group needs (default 2): one odd node is
	// a sick node, not a generation.
	MinHosts int
	// MinRatio is the least ratio of the groups' median rates (default
	// 1.25: the 1.2-1.5× generations of the scenarios, above what noise
	// of 15% per attempt puts between halves of one generation's hosts).
	MinRatio float64
	// MinSeparation is the least distance between the groups' mean log
	// rates in the wider group's standard deviations (default 3.5): one
	// generation's hosts cut in two at their mean are 2.65 apart (the
	// halves of a normal), two generations well more.
	MinSeparation float64
}

func (o SplitOptions) withDefaults() SplitOptions {
	if o.MinPerHost <= 0 {
		o.MinPerHost = 3
	}
	if o.MinHosts <= 0 {
		o.MinHosts = 2
	}
	if o.MinRatio <= 0 {
		o.MinRatio = 1.25
	}
	if o.MinSeparation <= 0 {
		o.MinSeparation = 3.5
	}
	return o
}

// TypeSplit is one node type whose hosts run one class at two speeds.
type TypeSplit struct {
	NodeType string   `json:"nodeType"`
	Class    string   `json:"class"`
	Fast     []string `json:"fastHosts"`
	Slow     []string `json:"slowHosts"`
	// Ratio is the fast group's median rate over the slow group's.
	Ratio float64 `json:"ratio"`
	// FastPattern and SlowPattern are host_pattern globs (path.Match) that
	// match their group and none of the other; "" when no common prefix
	// does.
	FastPattern string `json:"fastPattern,omitempty"`
	SlowPattern string `json:"slowPattern,omitempty"`
	Samples     int    `json:"samples"`
}

// TypeSplits finds, per node type and class, hosts running the class at
// clearly different speeds (map samples with a host; sorted by type, then
// class).
func TypeSplits(samples []Sample, o SplitOptions) []TypeSplit {
	o = o.withDefaults()
	type key struct{ typ, class string }
	rates := map[key]map[string][]float64{}
	for _, s := range samples {
		if !s.IsMap() || s.Host == "" {
			continue
		}
		r := s.rate()
		if r <= 0 {
			continue
		}
		k := key{s.NodeType, s.Class}
		if rates[k] == nil {
			rates[k] = map[string][]float64{}
		}
		rates[k][s.Host] = append(rates[k][s.Host], r)
	}
	var out []TypeSplit
	for k, byHost := range rates {
		if sp, ok := splitHosts(byHost, o); ok {
			sp.NodeType, sp.Class = k.typ, k.class
			out = append(out, sp)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].NodeType != out[j].NodeType {
			return out[i].NodeType < out[j].NodeType
		}
		return out[i].Class < out[j].Class
	})
	return out
}

// splitHosts sorts the hosts by median rate and cuts them in two where
// the groups' log rates are furthest apart for their spread (Otsu's
// threshold: the cut with the largest between-group variance), if both
// sides have MinHosts hosts, their medians differ by MinRatio and their
// means by MinSeparation pooled standard deviations.
func splitHosts(byHost map[string][]float64, o SplitOptions) (TypeSplit, bool) {
	type hostRate struct {
		host string
		med  float64
		log  float64
		n    int
	}
	var hs []hostRate
	for h, rs := range byHost {
		if len(rs) >= o.MinPerHost {
			m := Median(rs)
			hs = append(hs, hostRate{h, m, math.Log(m), len(rs)})
		}
	}
	if len(hs) < 2*o.MinHosts {
		return TypeSplit{}, false
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i].med < hs[j].med })
	meanVar := func(part []hostRate) (mean, ss float64) {
		for _, h := range part {
			mean += h.log
		}
		mean /= float64(len(part))
		for _, h := range part {
			ss += (h.log - mean) * (h.log - mean)
		}
		return mean, ss
	}
	best, bestBetween := -1, -1.0
	for k := o.MinHosts; k <= len(hs)-o.MinHosts; k++ {
		m0, _ := meanVar(hs[:k])
		m1, _ := meanVar(hs[k:])
		w0, w1 := float64(k), float64(len(hs)-k)
		if between := w0 * w1 * (m1 - m0) * (m1 - m0); between > bestBetween {
			best, bestBetween = k, between
		}
	}
	slow, fast := hs[:best], hs[best:]
	m0, ss0 := meanVar(slow)
	m1, ss1 := meanVar(fast)
	// The wider group's spread: a sick host and the slowest healthy one
	// are no group (their spread is as wide as the distance).
	spread := math.Sqrt(max(ss0/float64(len(slow)-1), ss1/float64(len(fast)-1)))
	if spread > 0 && (m1-m0)/spread < o.MinSeparation {
		return TypeSplit{}, false
	}
	meds := func(part []hostRate) float64 {
		v := make([]float64, len(part))
		for i, h := range part {
			v[i] = h.med
		}
		return Median(v)
	}
	ratio := meds(fast) / meds(slow)
	if ratio < o.MinRatio {
		return TypeSplit{}, false
	}
	sp := TypeSplit{Ratio: ratio}
	for _, h := range slow {
		sp.Samples += h.n
		sp.Slow = append(sp.Slow, h.host)
	}
	for _, h := range fast {
		sp.Samples += h.n
		sp.Fast = append(sp.Fast, h.host)
	}
	sort.Strings(sp.Slow)
	sort.Strings(sp.Fast)
	sp.FastPattern = separatingPattern(sp.Fast, sp.Slow)
	sp.SlowPattern = separatingPattern(sp.Slow, sp.Fast)
	return sp, true
}

// separatingPattern is a host_pattern glob for group that an admin can
// write: the stem most of its hosts share (the name without its trailing
// number, "cpu-new-" of cpu-new-07) when it names at least 80% of group
// and at most 20% of other (a few hosts the noise put on the wrong side
// stay right), else the common prefix of all of group when it matches none
// of other; "" when neither does.
func separatingPattern(group, other []string) string {
	stems := map[string]int{}
	for _, h := range group {
		stems[strings.TrimRight(h, "0123456789")]++
	}
	best, n := "", 0
	for st, c := range stems {
		if c > n || (c == n && st < best) {
			best, n = st, c
		}
	}
	matches := func(pat string, hosts []string) int {
		k := 0
		for _, h := range hosts {
			if ok, _ := path.Match(pat, h); ok {
				k++
			}
		}
		return k
	}
	if best != "" && n > 1 {
		pat := best + "*"
		if 5*matches(pat, group) >= 4*len(group) && 5*matches(pat, other) <= len(other) {
			return pat
		}
	}
	prefix := group[0]
	for _, h := range group[1:] {
		for !strings.HasPrefix(h, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	if prefix == "" || matches(prefix+"*", other) > 0 {
		return ""
	}
	return prefix + "*"
}

// Suggestion is the node_types lines an admin could add for the split,
// and a sentence saying why.
func (s TypeSplit) Suggestion() (why string, rules []string) {
	why = fmt.Sprintf("node type %s: class %s runs %.2f× faster on %d host(s) (%s) than on %d (%s), from %d map attempts; they have the same resources, so the sidecar learns them as one type",
		s.NodeType, s.Class, s.Ratio, len(s.Fast), hostList(s.Fast, s.FastPattern), len(s.Slow), hostList(s.Slow, s.SlowPattern), s.Samples)
	switch {
	case s.FastPattern != "" && s.SlowPattern != "":
		rules = []string{
			fmt.Sprintf("- {name: %s-fast, host_pattern: %q}", s.NodeType, s.FastPattern),
			fmt.Sprintf("- {name: %s-slow, host_pattern: %q}", s.NodeType, s.SlowPattern),
		}
	case s.FastPattern != "":
		rules = []string{fmt.Sprintf("- {name: %s-fast, host_pattern: %q}", s.NodeType, s.FastPattern)}
	case s.SlowPattern != "":
		rules = []string{fmt.Sprintf("- {name: %s-slow, host_pattern: %q}", s.NodeType, s.SlowPattern)}
	default:
		// No prefix tells the groups apart: one rule per host of the
		// smaller group (path.Match has no alternatives).
		small, name := s.Fast, s.NodeType+"-fast"
		if len(s.Slow) < len(s.Fast) {
			small, name = s.Slow, s.NodeType+"-slow"
		}
		for _, h := range small {
			rules = append(rules, fmt.Sprintf("- {name: %s, host_pattern: %q}", name, h))
		}
	}
	return why, rules
}

// hostList names a group: its pattern, or its first hosts.
func hostList(hosts []string, pattern string) string {
	if pattern != "" {
		return pattern
	}
	if len(hosts) > 3 {
		return strings.Join(slices.Clip(hosts[:3]), ", ") + ", …"
	}
	return strings.Join(hosts, ", ")
}
