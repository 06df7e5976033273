package act

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/affinity"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// LabelChange is a partition layout to put in place: labels to create,
// nodes to label, and queues to give access to each new label (in the
// scheduler-conf mutation that follows the label writes).
type LabelChange struct {
	Add     []yarn.Label        `json:"add"`
	Nodes   map[string]string   `json:"nodes"`  // node id → label
	Grants  map[string][]string `json:"grants"` // label → queues
	Reasons []string            `json:"reasons"`
	// Lend marks a calibration lend: one node moved between its label and
	// the default partition (LendCheck instead of StrandCheck).
	Lend bool `json:"lend,omitempty"`
	// Calibrations is a lend's exposure (issue 32: calibration exposure
	// per move in the audit): the containers of the slot size the lent
	// node holds, open to the default partition's queues.
	Calibrations []plan.CalibrationExposure `json:"calibrations,omitempty"`
	// Time is the snapshot's time (the RM's clock): the access grant's plan
	// is stamped with it, as every plan is, so the rate limit counts it on
	// the cluster's clock.
	Time time.Time `json:"time"`
}

// Empty reports whether the change writes nothing.
func (c LabelChange) Empty() bool { return len(c.Add) == 0 && len(c.Nodes) == 0 && len(c.Grants) == 0 }

// LabelChangeFrom turns a layout into the writes it needs against the
// cluster's current labels.
func LabelChangeFrom(l affinity.Layout, existing []yarn.Label) LabelChange {
	have := map[string]bool{}
	for _, e := range existing {
		have[e.Name] = true
	}
	out := LabelChange{Nodes: map[string]string{}, Grants: map[string][]string{}}
	for _, lp := range l.Labels {
		if lp.Exists || len(lp.Nodes) == 0 {
			continue // in place: the queue planner steers access and shares
		}
		if !have[lp.Name] {
			out.Add = append(out.Add, yarn.Label{Name: lp.Name, Exclusive: lp.Exclusive})
			// Only a label the sidecar creates gets its first access grant;
			// an existing one's queue configuration is the planner's.
			if len(lp.Queues) > 0 {
				out.Grants[lp.Name] = append([]string(nil), lp.Queues...)
			}
		}
		for _, n := range lp.Nodes {
			out.Nodes[n] = lp.Name
		}
		out.Reasons = append(out.Reasons, fmt.Sprintf("label %s on %d %s nodes: %s", lp.Name, len(lp.Nodes), lp.NodeType, lp.Reason))
	}
	return out
}

// GrantLabelAccess returns conf with label made accessible to queues (full
// paths) and their ancestors. At each parent the children that can use the
// label share it equally (percentage: sums of 100, weight mode: 1w each);
// root gets 100% of it. Capacities a child already has for the label are
// kept when they still sum right, and the queue planner steers them from
// the next cycle. Absolute-mode trees are refused: absolute resources for a
// new partition are the admin's call.
func GrantLabelAccess(conf schedconf.Conf, label string, queues []string) (schedconf.Conf, error) {
	tree, err := schedconf.ParseTree(conf)
	if err != nil {
		return nil, fmt.Errorf("grant label %s: %w", label, err)
	}
	out := conf.Clone()
	// users: every queue on the way from root to a granted queue.
	users := map[string]bool{}
	for _, q := range queues {
		node := tree.ByPath[q]
		if node == nil {
			return nil, fmt.Errorf("grant label %s: queue %s is not in the live queue tree", label, q)
		}
		for ; node != nil; node = node.Parent {
			users[node.Path] = true
		}
	}
	paths := make([]string, 0, len(users))
	for p := range users {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		q := tree.ByPath[p]
		if q.Capacity[""].Mode == schedconf.ModeAbsolute {
			return nil, fmt.Errorf("grant label %s: queue %s is in absolute mode; give it capacity for %s by hand", label, p, label)
		}
		if p != "root" && !q.CanUse(label) {
			key := schedconf.Key(p, "accessible-node-labels")
			cur := strings.TrimSpace(conf[key])
			if cur == "" || cur == " " {
				out[key] = label
			} else {
				out[key] = cur + "," + label
			}
		}
	}
	out[schedconf.Key("root", "accessible-node-labels."+label+".capacity")] = "100"
	for _, p := range paths {
		q := tree.ByPath[p]
		var kids []*schedconf.Queue
		for _, c := range q.Children {
			// Children that merely inherit "*" keep their default of 0 for
			// the label; one that already has a share is counted in.
			_, has := conf[schedconf.Key(c.Path, "accessible-node-labels."+label+".capacity")]
			if users[c.Path] || has {
				kids = append(kids, c)
			}
		}
		if len(kids) == 0 {
			continue
		}
		weight := q.Children[0].Capacity[""].Mode == schedconf.ModeWeight
		for i, c := range kids {
			v := "1w"
			if !weight {
				// Equal shares that sum to exactly 100 at two decimals.
				share := 10000 / len(kids)
				if i == len(kids)-1 {
					share = 10000 - share*(len(kids)-1)
				}
				v = strconv.FormatFloat(float64(share)/100, 'f', -1, 64)
			}
			out[schedconf.Key(c.Path, "accessible-node-labels."+label+".capacity")] = v
			if _, ok := conf[schedconf.Key(c.Path, "accessible-node-labels."+label+".maximum-capacity")]; !ok {
				out[schedconf.Key(c.Path, "accessible-node-labels."+label+".maximum-capacity")] = "100"
			}
		}
	}
	return out, nil
}
