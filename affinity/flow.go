package affinity

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
)

// FlowGraph is a directed graph with integer capacities and non-negative
// integer costs, for the min-cost flow that lays out partitions (CAM §4,
// digest 004: supplies are classes' demand in slots, costs their slowdown
// plus remote reads, capacities nodes' slots). No well-kept Go library
// solves min-cost flow, so this is the textbook successive-shortest-path
// method with Johnson potentials (Dijkstra on reduced costs): exact for
// integer data, and fast enough for graphs of classes × node groups.
type FlowGraph struct {
	adj   [][]int // node → indices into arcs
	arcs  []arc   // arc i and its reverse i^1
	added int     // arcs added by the caller (even indices)
}

type arc struct {
	to   int
	cap  int64 // residual capacity
	cost int64
}

// NewFlowGraph makes an empty graph of n nodes numbered 0..n-1.
func NewFlowGraph(n int) *FlowGraph { return &FlowGraph{adj: make([][]int, n)} }

// AddNode adds one node and returns its number.
func (g *FlowGraph) AddNode() int {
	g.adj = append(g.adj, nil)
	return len(g.adj) - 1
}

// Nodes is the number of nodes.
func (g *FlowGraph) Nodes() int { return len(g.adj) }

// AddEdge adds an arc and returns its id for Flow. Costs must be
// non-negative (the potentials start at zero).
func (g *FlowGraph) AddEdge(from, to int, capacity, cost int64) (int, error) {
	if from < 0 || from >= len(g.adj) || to < 0 || to >= len(g.adj) {
		return 0, fmt.Errorf("flow graph: edge %d→%d: node out of range (graph has %d nodes)", from, to, len(g.adj))
	}
	if capacity < 0 || cost < 0 {
		return 0, fmt.Errorf("flow graph: edge %d→%d: capacity %d and cost %d must be non-negative", from, to, capacity, cost)
	}
	id := len(g.arcs)
	g.arcs = append(g.arcs, arc{to: to, cap: capacity, cost: cost}, arc{to: from, cap: 0, cost: -cost})
	g.adj[from] = append(g.adj[from], id)
	g.adj[to] = append(g.adj[to], id+1)
	g.added++
	return id, nil
}

// Flow is the flow the last solve sent along edge id.
func (g *FlowGraph) Flow(id int) int64 { return g.arcs[id^1].cap }

// ErrNoPath means the sink is unreachable before any flow was sent.
var ErrNoPath = errors.New("flow graph: sink unreachable from source")

// MinCostFlow sends up to want units from s to t at least total cost and
// returns the flow sent (less than want when the graph cannot carry more)
// and its cost. It may be called once per graph.
func (g *FlowGraph) MinCostFlow(s, t int, want int64) (flow, cost int64, err error) {
	n := len(g.adj)
	if s < 0 || s >= n || t < 0 || t >= n || s == t {
		return 0, 0, fmt.Errorf("flow graph: source %d and sink %d must be distinct nodes of %d", s, t, n)
	}
	pot := make([]int64, n) // zero is valid: all costs are non-negative
	dist := make([]int64, n)
	via := make([]int, n) // arc used to reach each node
	for flow < want {
		if !g.shortestPaths(s, pot, dist, via) || dist[t] == math.MaxInt64 {
			break
		}
		for v := range pot {
			if dist[v] != math.MaxInt64 {
				pot[v] += dist[v]
			}
		}
		push := want - flow
		for v := t; v != s; v = g.arcs[via[v]^1].to {
			if c := g.arcs[via[v]].cap; c < push {
				push = c
			}
		}
		for v := t; v != s; v = g.arcs[via[v]^1].to {
			g.arcs[via[v]].cap -= push
			g.arcs[via[v]^1].cap += push
			cost += push * g.arcs[via[v]].cost
		}
		flow += push
	}
	if flow == 0 && want > 0 {
		return 0, 0, ErrNoPath
	}
	return flow, cost, nil
}

// shortestPaths is Dijkstra on reduced costs cost + pot[u] − pot[v], which
// are non-negative on residual arcs while pot holds shortest distances.
func (g *FlowGraph) shortestPaths(s int, pot, dist []int64, via []int) bool {
	for i := range dist {
		dist[i] = math.MaxInt64
		via[i] = -1
	}
	dist[s] = 0
	pq := &distHeap{{node: s}}
	for pq.Len() > 0 {
		cur := heap.Pop(pq).(distItem)
		if cur.dist > dist[cur.node] {
			continue
		}
		for _, id := range g.adj[cur.node] {
			a := g.arcs[id]
			if a.cap <= 0 {
				continue
			}
			nd := cur.dist + a.cost + pot[cur.node] - pot[a.to]
			if nd < dist[a.to] {
				dist[a.to] = nd
				via[a.to] = id
				heap.Push(pq, distItem{node: a.to, dist: nd})
			}
		}
	}
	return true
}

type distItem struct {
	node int
	dist int64
}

type distHeap []distItem

func (h distHeap) Len() int           { return len(h) }
func (h distHeap) Less(i, j int) bool { return h[i].dist < h[j].dist }
func (h distHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *distHeap) Push(x any)        { *h = append(*h, x.(distItem)) }
func (h *distHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
