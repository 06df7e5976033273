package cluster

import (
	"fmt"
	"sort"
)

// ResolveQueue returns the full path of the leaf queue an app names. Hadoop
// 3.3 reports an app's queue by the leaf's short name ("crypto" for
// root.crypto), later releases by the full path; a short name resolves when
// exactly one leaf has it. ok is false when no queue matches or the short
// name is shared by several leaves (ambiguous lists their paths).
func (s *Snapshot) ResolveQueue(name string) (path string, ok bool, ambiguous []string) {
	if name == "" {
		return "", false, nil
	}
	for _, q := range s.Queues {
		// A path, or a path below root without the "root." prefix.
		if q.Path == name || q.Path == "root."+name {
			return q.Path, true, nil
		}
	}
	var matches []string
	for _, q := range s.Queues {
		if q.Leaf && q.Name == name {
			matches = append(matches, q.Path)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], true, nil
	case 0:
		return "", false, nil
	}
	sort.Strings(matches)
	return "", false, matches
}

// ResolveAppQueues sets each app's Queue to the full path of its leaf
// (ResolveQueue). An app whose queue cannot be resolved keeps the name the
// RM gave and is reported in Errors, so no consumer silently mistakes it
// for another queue.
func (s *Snapshot) ResolveAppQueues() {
	// One index of the tree rather than a scan of it per app (issue 19:
	// apps × queues at 5,000 × 200).
	type answer struct {
		path      string
		ok        bool
		ambiguous []string
	}
	known := map[string]answer{}
	for i := range s.Apps {
		a := &s.Apps[i]
		r, seen := known[a.Queue]
		if !seen {
			r.path, r.ok, r.ambiguous = s.ResolveQueue(a.Queue)
			known[a.Queue] = r
		}
		path, ok, ambiguous := r.path, r.ok, r.ambiguous
		switch {
		case ok:
			a.Queue = path
		case len(ambiguous) > 0:
			s.Errors = append(s.Errors, LoadError{What: "app " + a.ID + " queue", Endpoint: "/ws/v1/cluster/apps",
				Err: fmt.Sprintf("queue %q is the short name of several leaves %v; left unresolved", a.Queue, ambiguous)})
		case a.Queue != "":
			s.Errors = append(s.Errors, LoadError{What: "app " + a.ID + " queue", Endpoint: "/ws/v1/cluster/apps",
				Err: fmt.Sprintf("queue %q is not in the queue tree; left unresolved", a.Queue)})
		}
	}
}
