package schedconf

import (
	"fmt"
	"sort"
	"strings"
)

// Apply returns a new configuration with the mutation applied the way
// MutableCSConfigurationProvider does it (c is never modified): add-queue
// appends a leaf to its parent's queues list and sets its params (a parent
// added in the same request is allowed); update-queue sets params relative to
// the queue, an empty value unsetting the key; remove-queue drops a STOPPED
// queue and its keys; global-updates set full keys, an empty value leaving
// the key present as "" (recorded on Hadoop 3.3.6: only queue params are
// unset by an empty value). Apply does not check capacities: call Validate
// on the result, as the RM re-initialises its queues in the same
// transaction.
//
// Apply is stricter than Hadoop in one place: an update-queue of a queue
// that does not exist is an error (3.3.6 accepts it and writes the
// property; see ApplyAsHadoop and CheckMutation).
func (c Conf) Apply(m Mutation) (Conf, error) { return c.apply(m, true) }

// ApplyAsHadoop is Apply as Hadoop 3.3.6 really behaves: an update-queue of
// a queue that is not in the tree is accepted and its params are written
// (recorded: update-queue root.nosuch capacity=10 → 200, property written).
// It is the RM's model for the mini cluster, never the sidecar's.
func (c Conf) ApplyAsHadoop(m Mutation) (Conf, error) { return c.apply(m, false) }

func (c Conf) apply(m Mutation, strict bool) (Conf, error) {
	out := c.Clone()
	var exists func(path string) bool
	exists = func(path string) bool {
		if path == "root" {
			return true
		}
		if !strings.Contains(path, ".") {
			return false // not a path under root (an RM or a file said "x")
		}
		parent := path[:strings.LastIndex(path, ".")]
		name := path[strings.LastIndex(path, ".")+1:]
		for _, q := range queueList(out[Key(parent, "queues")]) {
			if q == name {
				return exists(parent)
			}
		}
		return false
	}
	for _, aq := range m.AddQueue {
		path := strings.TrimSpace(aq.Queue)
		if !strings.HasPrefix(path, "root.") {
			return nil, fmt.Errorf("add-queue %q: queue-name must be a full path under root", aq.Queue)
		}
		if exists(path) {
			return nil, fmt.Errorf("add-queue %s: queue already exists", path)
		}
		parent := path[:strings.LastIndex(path, ".")]
		if !exists(parent) {
			return nil, fmt.Errorf("add-queue %s: parent queue %s does not exist", path, parent)
		}
		name := path[strings.LastIndex(path, ".")+1:]
		siblings := queueList(out[Key(parent, "queues")])
		out[Key(parent, "queues")] = strings.Join(append(siblings, name), ",")
		setParams(out, path, aq.Params)
	}
	for _, uq := range m.UpdateQueue {
		path := strings.TrimSpace(uq.Queue)
		if strict && !exists(path) {
			return nil, fmt.Errorf("update-queue %s: queue does not exist", path)
		}
		setParams(out, path, uq.Params)
	}
	for _, rq := range m.RemoveQueue {
		path := strings.TrimSpace(rq)
		if path == "root" || !exists(path) {
			return nil, fmt.Errorf("remove-queue %s: queue does not exist", path)
		}
		if state := strings.ToUpper(c[Key(path, "state")]); state != "STOPPED" {
			if state == "" {
				state = "RUNNING"
			}
			return nil, &ValidationError{Queue: path, Message: fmt.Sprintf("%s is deleted from the new capacity scheduler configuration, but the queue is not yet in stopped state. Current State : %s", path, state)}
		}
		parent := path[:strings.LastIndex(path, ".")]
		name := path[strings.LastIndex(path, ".")+1:]
		var keep []string
		for _, q := range queueList(out[Key(parent, "queues")]) {
			if q != name {
				keep = append(keep, q)
			}
		}
		out[Key(parent, "queues")] = strings.Join(keep, ",")
		prefix := Prefix + path + "."
		for k := range out {
			if strings.HasPrefix(k, prefix) {
				delete(out, k)
			}
		}
	}
	for _, k := range sortedKeys(m.GlobalUpdates) {
		out[k] = m.GlobalUpdates[k] // "" stays present as "" (Hadoop 3.3.6)
	}
	return out, nil
}

func setParams(c Conf, path string, params map[string]string) {
	for _, k := range sortedKeys(params) {
		if v := params[k]; v == "" {
			delete(c, Key(path, k))
		} else {
			c[Key(path, k)] = v
		}
	}
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Diff returns the mutation that turns from into to: queue-relative keys of
// queues present in both become update-queue params (empty value = unset);
// queues only in to are added (parents first) and queues only in from are
// removed (they must be STOPPED in from for the RM to accept it); other keys
// are global-updates. Applying Diff(from, to) to from yields to.
func Diff(from, to Conf) Mutation {
	var m Mutation
	fromT, errF := ParseTree(from)
	toT, errT := ParseTree(to)
	queueOf := func(t *Tree, key string) string {
		if t == nil || !strings.HasPrefix(key, Prefix) {
			return ""
		}
		// Longest queue path that prefixes the key.
		best := ""
		for p := range t.ByPath {
			if strings.HasPrefix(key, Prefix+p+".") && len(p) > len(best) {
				best = p
			}
		}
		return best
	}
	if errF != nil {
		fromT = nil
	}
	if errT != nil {
		toT = nil
	}
	updates := map[string]map[string]string{}
	adds := map[string]map[string]string{}
	removed := map[string]bool{}
	if fromT != nil && toT != nil {
		for p := range fromT.ByPath {
			if _, ok := toT.ByPath[p]; !ok {
				removed[p] = true
			}
		}
		for p := range toT.ByPath {
			if _, ok := fromT.ByPath[p]; !ok {
				adds[p] = map[string]string{}
			}
		}
	}
	set := func(key, val string) {
		q := queueOf(toT, key)
		if q == "" {
			q = queueOf(fromT, key)
		}
		if q == "" {
			if m.GlobalUpdates == nil {
				m.GlobalUpdates = map[string]string{}
			}
			m.GlobalUpdates[key] = val
			return
		}
		rel := strings.TrimPrefix(key, Prefix+q+".")
		if removed[q] {
			return // dropped with the queue
		}
		if a, ok := adds[q]; ok {
			if val != "" {
				a[rel] = val
			}
			return
		}
		if rel == "queues" && (len(adds) > 0 || len(removed) > 0) {
			// The provider maintains parents' queues lists for adds/removes.
			if listChangeOnlyByAddRemove(from[key], val, q, adds, removed) {
				return
			}
		}
		if updates[q] == nil {
			updates[q] = map[string]string{}
		}
		updates[q][rel] = val
	}
	for k, v := range to {
		if from[k] != v {
			set(k, v)
		}
	}
	for k := range from {
		if _, ok := to[k]; !ok {
			set(k, "")
		}
	}
	addPaths := make([]string, 0, len(adds))
	for p := range adds {
		addPaths = append(addPaths, p)
	}
	sort.Slice(addPaths, func(i, j int) bool {
		if strings.Count(addPaths[i], ".") != strings.Count(addPaths[j], ".") {
			return strings.Count(addPaths[i], ".") < strings.Count(addPaths[j], ".")
		}
		return addPaths[i] < addPaths[j]
	})
	for _, p := range addPaths {
		m.AddQueue = append(m.AddQueue, QueueUpdate{Queue: p, Params: adds[p]})
	}
	for _, q := range sortedMapKeys(updates) {
		m.UpdateQueue = append(m.UpdateQueue, QueueUpdate{Queue: q, Params: updates[q]})
	}
	for p := range removed {
		// Only the topmost removed queue needs naming.
		parent := p[:strings.LastIndex(p, ".")]
		if !removed[parent] {
			m.RemoveQueue = append(m.RemoveQueue, p)
		}
	}
	sort.Strings(m.RemoveQueue)
	return m
}

// listChangeOnlyByAddRemove reports whether a parent's queues list changed
// only by the queues being added or removed (which Apply maintains itself).
func listChangeOnlyByAddRemove(before, after, parent string, adds map[string]map[string]string, removed map[string]bool) bool {
	b := queueList(before)
	var expect []string
	for _, q := range b {
		if !removed[parent+"."+q] {
			expect = append(expect, q)
		}
	}
	have := map[string]bool{}
	for _, q := range expect {
		have[q] = true
	}
	for _, q := range queueList(after) {
		if !have[q] {
			if _, ok := adds[parent+"."+q]; !ok {
				return false
			}
			expect = append(expect, q)
		}
	}
	return strings.Join(expect, ",") == strings.Join(queueList(after), ",")
}

func sortedMapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
