package calibrate

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// NodeTypeRule assigns a type by partition label, host glob or GPUs.
type NodeTypeRule struct {
	Name        string
	Label       string
	HostPattern string // path.Match glob, e.g. "worker-2*"
	MinGPUs     int64
}

// Classifier maps nodes to node types: the first matching rule wins; other
// nodes are grouped by identical resources and partition.
type Classifier struct{ Rules []NodeTypeRule }

// TypeOf returns a node's type.
func (c Classifier) TypeOf(n cluster.Node) string {
	for _, r := range c.Rules {
		if r.Label != "" && n.Partition != r.Label {
			continue
		}
		if r.HostPattern != "" {
			if ok, _ := path.Match(r.HostPattern, n.Host); !ok {
				continue
			}
		}
		if r.MinGPUs > 0 && n.Total.GPUs < r.MinGPUs {
			continue
		}
		return r.Name
	}
	kind := "cpu"
	if n.Total.GPUs > 0 {
		kind = "gpu"
	}
	t := fmt.Sprintf("%s:%dc-%dg", kind, n.Total.VCores, n.Total.MemoryMB/1024)
	if n.Total.GPUs > 0 {
		t += fmt.Sprintf("-%dgpu", n.Total.GPUs)
	}
	if n.Partition != "" {
		t += "@" + n.Partition
	}
	return t
}

// Types maps every node id (and host) to its type.
func (c Classifier) Types(nodes []cluster.Node) map[string]string {
	out := make(map[string]string, 2*len(nodes))
	for _, n := range nodes {
		t := c.TypeOf(n)
		out[n.ID] = t
		out[n.Host] = t
	}
	return out
}

// ClassKey says how recurring jobs are recognised: "tag" (jobclass=NAME,
// else the normalised name), "name", "queue" or "user".
type ClassKey string

var (
	dateLike  = regexp.MustCompile(`\d{4}-?\d{2}-?\d{2}(t\d{2}:?\d{2}(:?\d{2})?)?`)
	hexLike   = regexp.MustCompile(`\b[0-9a-f]{8,}\b`)
	digits    = regexp.MustCompile(`\d+`)
	separator = regexp.MustCompile(`[_\-.]{2,}`)
)

// NormalizeName strips run-specific parts (dates, ids, digits) from a job
// name so runs of one recurring job share a class:
// "etl_2026-11-21_run42" → "etl_run".
func NormalizeName(name string) string {
	s := strings.ToLower(strings.TrimSpace(name))
	s = dateLike.ReplaceAllString(s, "")
	s = hexLike.ReplaceAllString(s, "")
	s = digits.ReplaceAllString(s, "")
	s = separator.ReplaceAllString(s, "_")
	s = strings.Trim(s, "_-. ")
	if s == "" {
		return "unnamed"
	}
	return s
}

// ClassOf returns an app's job class.
func (k ClassKey) ClassOf(a cluster.App) string {
	switch k {
	case "queue":
		return a.Queue
	case "user":
		return a.User
	case "name":
		return NormalizeName(a.Name)
	default:
		if v, ok := a.Tag("jobclass"); ok && v != "" {
			return v
		}
		return NormalizeName(a.Name)
	}
}

// AddressTypeOf names the node type of a node HTTP address (host:port, as
// the AM's task attempts give it), matched against the RM's nodes as
// cluster.NodeAddresses does, by types (Types' map); "" when no node
// matches.
func AddressTypeOf(nodes []cluster.Node, types map[string]string) func(addr string) string {
	x := cluster.IndexNodeAddresses(nodes)
	return func(addr string) string {
		n, ok := x.Node(addr)
		if !ok {
			return ""
		}
		return types[n.ID]
	}
}
