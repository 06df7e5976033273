package replay

import "github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"

// FromTree is the configuration a parsed scheduler tree makes: each leaf's
// home (default-node-label-expression) and its share of each partition,
// its share of the parent multiplied down the tree in whichever mode each
// sibling group is written (percentages, weights, absolute resources by
// memory). Maximum-capacities are taken where written as percentages (an
// absolute ceiling counts as none). exclusive names the exclusive labels.
func FromTree(t *schedconf.Tree, exclusive map[string]bool) Config {
	c := Config{Queues: map[string]Queue{}, Exclusive: exclusive}
	var walk func(q *schedconf.Queue, abs map[string]float64)
	walk = func(q *schedconf.Queue, abs map[string]float64) {
		if q.IsLeaf() {
			c.Queues[q.Path] = Queue{Home: q.DefaultLabelExpression, Guarantee: abs, Max: maxShares(t, q)}
			return
		}
		for _, ch := range q.Children {
			child := map[string]float64{}
			for _, l := range t.Labels {
				child[l] = abs[l] * shareOfParent(ch, l)
			}
			walk(ch, child)
		}
	}
	root := map[string]float64{}
	for _, l := range t.Labels {
		root[l] = 1
	}
	walk(t.Root, root)
	return c
}

func maxShares(t *schedconf.Tree, q *schedconf.Queue) map[string]float64 {
	out := map[string]float64{}
	for _, l := range t.Labels {
		out[l] = q.AbsMaxCapacity[l]
	}
	return out
}

// shareOfParent is q's share (0..1) of its parent in partition l (none
// where q may not use l).
func shareOfParent(q *schedconf.Queue, l string) float64 {
	if l != "" && !q.CanUse(l) {
		return 0
	}
	return q.ShareOfParent(l) / 100
}
