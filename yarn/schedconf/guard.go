package schedconf

import (
	"fmt"
	"strings"
)

// GuardError is a mutation the sidecar refuses to send although the RM would
// accept it: Hadoop 3.3.6 answers 200 to an update-queue of a queue that does
// not exist (and writes the property) and to accessible-node-labels naming a
// label the cluster does not have (recorded in mutations/put_unknownqueue and
// put_unknownlabel). Neither is ever what an operator wants.
type GuardError struct {
	Where   string // "update-queue root.nosuch", "global-updates <key>"
	Message string
}

func (e *GuardError) Error() string { return e.Where + ": " + e.Message }

// dottedProps are queue properties whose relative name has dots, so a
// relative key starting with one of these is the queue's own property and
// not a child queue's.
var dottedProps = map[string]bool{
	"accessible-node-labels":  true, // accessible-node-labels.<label>.capacity
	"ordering-policy":         true, // ordering-policy.fair.enable-size-based-weight
	"auto-create-child-queue": true, // auto-create-child-queue.enabled
	"leaf-queue-template":     true,
	"auto-queue-creation-v2":  true,
	"intra-queue-preemption":  true,
	"user-settings":           true, // user-settings.<user>.weight (3.4)
}

// CheckMutation refuses, before anything is sent, what the RM would accept
// wrongly: a property of a queue that is not in live's tree (update-queue of
// an unknown queue, a param or global key that reaches below a queue into a
// child that does not exist) and a node label that is not one of
// clusterLabels (accessible-node-labels, accessible-node-labels.<L>.*,
// default-node-label-expression). clusterLabels nil skips the label check
// (labels unknown); an empty non-nil list means the cluster has none.
// Only what the mutation writes is checked: a label the live configuration
// already mentions is left to the operator.
func CheckMutation(live Conf, m Mutation, clusterLabels []string) error {
	tree, err := ParseTree(live)
	if err != nil {
		return fmt.Errorf("parse live scheduler configuration: %w", err)
	}
	var known map[string]bool
	if clusterLabels != nil {
		known = map[string]bool{"": true, "*": true}
		for _, l := range clusterLabels {
			known[strings.TrimSpace(l)] = true
		}
	}
	added := map[string]bool{}
	for _, aq := range m.AddQueue {
		added[strings.TrimSpace(aq.Queue)] = true
	}
	inTree := func(path string) bool {
		_, ok := tree.ByPath[path]
		return ok || added[path]
	}
	for _, uq := range m.UpdateQueue {
		path := strings.TrimSpace(uq.Queue)
		where := "update-queue " + path
		if !inTree(path) {
			return &GuardError{Where: where, Message: fmt.Sprintf("queue %s is not in the live queue tree (Hadoop would accept it and write the property; the sidecar never writes a property of a queue that does not exist)", path)}
		}
		for _, k := range sortedKeys(uq.Params) {
			if err := checkParam(where, path, k, uq.Params[k], inTree, known); err != nil {
				return err
			}
		}
	}
	for _, aq := range m.AddQueue {
		path := strings.TrimSpace(aq.Queue)
		for _, k := range sortedKeys(aq.Params) {
			if err := checkParam("add-queue "+path, path, k, aq.Params[k], inTree, known); err != nil {
				return err
			}
		}
	}
	for _, k := range sortedKeys(m.GlobalUpdates) {
		if !strings.HasPrefix(k, Prefix+"root.") {
			continue // scheduler-wide property
		}
		// The deepest queue of the tree the key belongs to.
		owner := "root"
		for p := range tree.ByPath {
			if strings.HasPrefix(k, Prefix+p+".") && len(p) > len(owner) {
				owner = p
			}
		}
		for p := range added {
			if strings.HasPrefix(k, Prefix+p+".") && len(p) > len(owner) {
				owner = p
			}
		}
		rel := strings.TrimPrefix(k, Prefix+owner+".")
		if err := checkParam("global-updates "+k, owner, rel, m.GlobalUpdates[k], inTree, known); err != nil {
			return err
		}
	}
	return nil
}

// checkParam checks one property relative to queue path.
func checkParam(where, path, rel, value string, inTree func(string) bool, known map[string]bool) error {
	if i := strings.Index(rel, "."); i > 0 && !dottedProps[rel[:i]] {
		child := path + "." + rel[:i]
		if !inTree(child) {
			return &GuardError{Where: where, Message: fmt.Sprintf("property %s belongs to queue %s, which is not in the live queue tree", rel, child)}
		}
	}
	if known == nil {
		return nil
	}
	for _, l := range labelsIn(rel, value) {
		if !known[l] {
			return &GuardError{Where: where, Message: fmt.Sprintf("node label %q does not exist in the cluster (known: %s); Hadoop would accept it, the sidecar does not write it", l, knownList(known))}
		}
	}
	return nil
}

// labelsIn are the node labels a queue-relative property names, when it is
// given a non-empty value.
func labelsIn(rel, value string) []string {
	if strings.TrimSpace(value) == "" {
		return nil
	}
	switch {
	case rel == "accessible-node-labels":
		return labelList(value)
	case rel == "default-node-label-expression":
		return []string{strings.TrimSpace(value)}
	case strings.HasPrefix(rel, "accessible-node-labels."):
		l := strings.TrimPrefix(rel, "accessible-node-labels.")
		if i := strings.LastIndex(l, "."); i > 0 {
			return []string{l[:i]}
		}
	}
	return nil
}

// NamesLabels reports whether the mutation writes a property naming a node
// label (so the label guard needs the cluster's labels).
func (m Mutation) NamesLabels() bool {
	for _, qs := range [][]QueueUpdate{m.AddQueue, m.UpdateQueue} {
		for _, q := range qs {
			for k, v := range q.Params {
				if len(labelsIn(k, v)) > 0 {
					return true
				}
			}
		}
	}
	for k, v := range m.GlobalUpdates {
		if i := strings.Index(k, ".accessible-node-labels"); i > 0 && strings.TrimSpace(v) != "" {
			return true
		}
		if strings.HasSuffix(k, ".default-node-label-expression") && strings.TrimSpace(v) != "" {
			return true
		}
	}
	return false
}

func knownList(known map[string]bool) string {
	var ls []string
	for l := range known {
		if l != "" && l != "*" {
			ls = append(ls, l)
		}
	}
	if len(ls) == 0 {
		return "none"
	}
	return strings.Join(sortedStrings(ls), ",")
}

func sortedStrings(s []string) []string {
	m := make(map[string]string, len(s))
	for _, x := range s {
		m[x] = x
	}
	return sortedKeys(m)
}

// IdentityMutation is a mutation that changes nothing: root's queues list set
// to its current value. A working POST /scheduler-conf/validate accepts it on
// any RM whose live configuration is valid, so its failure means the RM
// cannot validate at all (e.g. the leveldb store's lock error), not that a
// plan is wrong.
func IdentityMutation(live Conf) Mutation {
	return Mutation{UpdateQueue: []QueueUpdate{{Queue: "root", Params: map[string]string{"queues": live[Key("root", "queues")]}}}}
}
