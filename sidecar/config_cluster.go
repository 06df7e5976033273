package sidecar

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
)

// Checking the config against the live cluster. A misspelled queue under
// queues: (root.adhocc: {pinned: true}) used to be accepted silently and
// the protection it meant went to nobody: the plan then changed
// root.adhoc. At start every queue path, node label and node-type pattern
// the config names must exist in the cluster, or be marked
// expected_later: true (a queue or label the admin is about to create).

// Inventory is what the cluster has, as the check needs it: every queue's
// full path (parents included), the node labels, and each node's host and
// GPUs.
type Inventory struct {
	Queues []string
	Labels []string
	Nodes  []InventoryNode
}

// InventoryNode is one node of the inventory.
type InventoryNode struct {
	Host string
	GPUs int64
}

// CheckAgainstCluster lists, as a *ConfigError, every name in the config
// that the cluster does not have (with the nearest name it has), skipping
// those marked expected_later. Nil when all exist.
func (c *Config) CheckAgainstCluster(inv Inventory) error {
	var bad []string
	queues := map[string]bool{}
	for _, q := range inv.Queues {
		queues[q] = true
	}
	for _, q := range plan.SortedKeys(c.Queues) {
		if c.Queues[q].ExpectedLater || queues[q] {
			continue
		}
		hint := didYouMean(q, inv.Queues)
		if hint == "" {
			hint = someOf("queues are", inv.Queues)
		}
		bad = append(bad, fmt.Sprintf("queues.%s: no such queue%s (mark it expected_later: true if it is about to be created)", q, hint))
	}
	labels := map[string]bool{}
	for _, l := range inv.Labels {
		labels[l] = true
	}
	for i, r := range c.NodeTypes {
		if r.ExpectedLater {
			continue
		}
		where := fmt.Sprintf("node_types[%d] (%s)", i, r.Name)
		if r.Label != "" && !labels[r.Label] {
			hint := didYouMean(r.Label, inv.Labels)
			if hint == "" {
				hint = someOf("labels are", inv.Labels)
				if len(inv.Labels) == 0 {
					hint = "; the cluster has no node labels"
				}
			}
			bad = append(bad, fmt.Sprintf("%s.label: no such node label %q%s", where, r.Label, hint))
		}
		if r.HostPattern != "" {
			if _, err := path.Match(r.HostPattern, ""); err != nil {
				bad = append(bad, fmt.Sprintf("%s.host_pattern: %q is not a glob: %v", where, r.HostPattern, err))
			} else if !anyHost(r.HostPattern, inv.Nodes) {
				bad = append(bad, fmt.Sprintf("%s.host_pattern: %q matches no node%s", where, r.HostPattern, hostsFor(r.HostPattern, inv.Nodes)))
			}
		}
		if r.MinGPUs > 0 && !anyGPUs(r.MinGPUs, inv.Nodes) {
			bad = append(bad, fmt.Sprintf("%s.min_gpus: no node has %d GPUs or more", where, r.MinGPUs))
		}
	}
	if len(bad) > 0 {
		return &ConfigError{Fields: bad, Cluster: true}
	}
	return nil
}

// CheckQueue says whether a queue path given on the command line (--queue)
// exists, with the nearest one when it does not.
func CheckQueue(flag, queue string, inv Inventory) error {
	for _, q := range inv.Queues {
		if q == queue {
			return nil
		}
	}
	hint := didYouMean(queue, inv.Queues)
	if hint == "" {
		hint = someOf("queues are", inv.Queues)
	}
	return fmt.Errorf("--%s %s: no such queue%s", flag, queue, hint)
}

// someOf is "; <what> a, b, c" with the first few names (sorted), so an
// admin sees what the names look like; "" when there are none.
func someOf(what string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	s := append([]string(nil), names...)
	sort.Strings(s)
	more := ""
	if len(s) > 8 {
		s, more = s[:8], ", …"
	}
	return "; " + what + " " + strings.Join(s, ", ") + more
}

func anyHost(pattern string, nodes []InventoryNode) bool {
	for _, n := range nodes {
		if ok, _ := path.Match(pattern, n.Host); ok {
			return true
		}
	}
	return false
}

func anyGPUs(min int64, nodes []InventoryNode) bool {
	for _, n := range nodes {
		if n.GPUs >= min {
			return true
		}
	}
	return false
}

// hostsFor names the host nearest the pattern (its literal part), or a
// few hosts, so the admin sees what the names look like.
func hostsFor(pattern string, nodes []InventoryNode) string {
	hosts := make([]string, 0, len(nodes))
	for _, n := range nodes {
		hosts = append(hosts, n.Host)
	}
	if len(hosts) == 0 {
		return " (the cluster lists no node)"
	}
	// The pattern's literal start against each host's start of the same
	// length ("wrker-*" is near "worker-01").
	lit := []rune(pattern)
	if i := strings.IndexAny(pattern, "*?[\\"); i >= 0 {
		lit = []rune(pattern[:i])
	}
	if len(lit) > 0 {
		best, bestD := "", -1
		for _, h := range hosts {
			hr := []rune(h)
			if len(hr) > len(lit)+1 {
				hr = hr[:len(lit)+1]
			}
			if d := editDistance(string(lit), string(hr)); bestD < 0 || d < bestD || (d == bestD && h < best) {
				best, bestD = h, d
			}
		}
		if bestD <= max(2, len(lit)/3) {
			return "; did you mean a pattern for " + best + "?"
		}
	}
	return someOf("hosts are", hosts)
}

// didYouMean is "; did you mean X?" for the candidate nearest name by edit
// distance, when it is near enough to be a slip (at most a third of the
// name's length, at least 2 edits); "" otherwise.
func didYouMean(name string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		if c == "" {
			continue
		}
		d := editDistance(name, c)
		if bestD < 0 || d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	limit := len([]rune(name)) / 3
	if limit < 2 {
		limit = 2
	}
	if bestD < 0 || bestD > limit {
		return ""
	}
	return "; did you mean " + best + "?"
}

// editDistance is the Levenshtein distance between a and b (insertions,
// deletions and substitutions of runes), in O(len(a)·len(b)) time and
// O(len(b)) space.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
