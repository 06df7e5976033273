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
// NodeManagers per host, told apart by port alone.
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

// WithAttemptNodes returns the app with each task attempt's NodeID set to
// the node that ran it (NodeForHTTPAddress); attempts whose node cannot be
// told keep the NodeID they had. The app's job and attempts are copied,
// never changed in place.
func WithAttemptNodes(a App, nodes []Node) App {
	if a.Job == nil || len(a.Job.Attempts) == 0 {
		return a
	}
	j := *a.Job
	j.Attempts = append([]Attempt(nil), a.Job.Attempts...)
	for i := range j.Attempts {
		if n, ok := NodeForHTTPAddress(nodes, j.Attempts[i].NodeHTTPAddress); ok {
			j.Attempts[i].NodeID = n.ID
		}
	}
	a.Job = &j
	return a
}
