package cluster

import "strings"

// HTTPHostPort is a NodeManager web address as host:port, whether Hadoop
// sent it with a scheme (an app's containers list: "http://gpunode:8042")
// or without (nodes, AM and JobHistory task attempts: "gpunode:8042").
func HTTPHostPort(addr string) string {
	a := strings.TrimSpace(addr)
	if i := strings.Index(a, "://"); i >= 0 {
		a = a[i+3:]
	}
	if i := strings.IndexByte(a, '/'); i >= 0 {
		a = a[:i]
	}
	return strings.ToLower(a)
}

func hostOf(hostPort string) string {
	h, _, _ := strings.Cut(hostPort, ":")
	return h
}

// NodeForHTTPAddress finds the node whose NodeManager web address is addr
// (host:port, with or without a scheme). Only when no node has that exact
// address does it fall back to the host name, and then only when one node
// runs on that host: test clusters and MiniYARNCluster run several
// NodeManagers per host, told apart by port alone. It scans nodes: for
// many addresses, index them once (IndexNodeAddresses).
func NodeForHTTPAddress(nodes []Node, addr string) (Node, bool) {
	want := HTTPHostPort(addr)
	if want == "" {
		return Node{}, false
	}
	for _, n := range nodes {
		if n.HTTPAddress != "" && HTTPHostPort(n.HTTPAddress) == want {
			return n, true
		}
	}
	host := hostOf(want)
	var found Node
	count := 0
	for _, n := range nodes {
		h := strings.ToLower(n.Host)
		if h == "" {
			h = hostOf(strings.ToLower(n.ID))
		}
		if h == host {
			found = n
			count++
		}
	}
	return found, count == 1
}

// NodeAddresses indexes nodes by NodeManager web address and by host, so
// that each of a job's attempts finds its node in O(1), not in a scan of
// the cluster (issue 19: attempts × nodes per finished job in learn).
type NodeAddresses struct {
	nodes  []Node
	byAddr map[string]int // host:port → the first node with that address
	byHost map[string]int // host → its one node; -1 when several share it
}

// IndexNodeAddresses builds the index of nodes (kept, not copied).
func IndexNodeAddresses(nodes []Node) *NodeAddresses {
	x := &NodeAddresses{nodes: nodes, byAddr: make(map[string]int, len(nodes)), byHost: make(map[string]int, len(nodes))}
	for i, n := range nodes {
		if n.HTTPAddress != "" {
			if a := HTTPHostPort(n.HTTPAddress); a != "" {
				if _, dup := x.byAddr[a]; !dup {
					x.byAddr[a] = i
				}
			}
		}
		h := strings.ToLower(n.Host)
		if h == "" {
			h = hostOf(strings.ToLower(n.ID))
		}
		if _, dup := x.byHost[h]; dup {
			x.byHost[h] = -1
		} else {
			x.byHost[h] = i
		}
	}
	return x
}

// Node is NodeForHTTPAddress on the indexed nodes.
func (x *NodeAddresses) Node(addr string) (Node, bool) {
	want := HTTPHostPort(addr)
	if want == "" {
		return Node{}, false
	}
	if i, ok := x.byAddr[want]; ok {
		return x.nodes[i], true
	}
	if i, ok := x.byHost[hostOf(want)]; ok && i >= 0 {
		return x.nodes[i], true
	}
	return Node{}, false
}

// WithAttemptNodes returns the app with each task attempt's NodeID set to
// the node that ran it (NodeForHTTPAddress); attempts whose node cannot be
// told keep the NodeID they had. The app's job and attempts are copied,
// never changed in place. For many apps, index the nodes once
// (NodeAddresses.WithAttemptNodes).
func WithAttemptNodes(a App, nodes []Node) App {
	if a.Job == nil || len(a.Job.Attempts) == 0 {
		return a
	}
	return IndexNodeAddresses(nodes).WithAttemptNodes(a)
}

// WithAttemptNodes is WithAttemptNodes on the indexed nodes.
func (x *NodeAddresses) WithAttemptNodes(a App) App {
	if a.Job == nil || len(a.Job.Attempts) == 0 {
		return a
	}
	j := *a.Job
	j.Attempts = append([]Attempt(nil), a.Job.Attempts...)
	for i := range j.Attempts {
		if n, ok := x.Node(j.Attempts[i].NodeHTTPAddress); ok {
			j.Attempts[i].NodeID = n.ID
		}
	}
	a.Job = &j
	return a
}
