package learn

import (
	"fmt"
	"slices"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
)

// TypeSplitReporter is a Learner that finds node types whose hosts run a
// class at clearly different speeds (calibrate.TypeSplits over its
// history), so status and the report can tell the admin to describe them.
type TypeSplitReporter interface {
	TypeSplits() []calibrate.TypeSplit
}

// NodeTypeHints turns the splits into what `calibrate` and `status` print:
// per node type one sentence per class that splits it, then the node_types
// rules that would tell the groups apart (deduplicated across classes).
func NodeTypeHints(splits []calibrate.TypeSplit) []string {
	var out []string
	var types []string
	byType := map[string][]calibrate.TypeSplit{}
	for _, s := range splits {
		if byType[s.NodeType] == nil {
			types = append(types, s.NodeType)
		}
		byType[s.NodeType] = append(byType[s.NodeType], s)
	}
	for _, t := range types {
		var rules []string
		for _, s := range byType[t] {
			why, rs := s.Suggestion()
			out = append(out, why)
			for _, r := range rs {
				if !slices.Contains(rules, r) {
					rules = append(rules, r)
				}
			}
		}
		out = append(out, fmt.Sprintf("describe node type %s's hosts in node_types (first match wins; see configs/sidecar.example.yaml), e.g.: node_types: [%s]",
			t, strings.Join(trimDash(rules), ", ")))
	}
	return out
}

func trimDash(rules []string) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = strings.TrimPrefix(r, "- ")
	}
	return out
}
