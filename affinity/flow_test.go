package affinity

import (
	"errors"
	"math"
	"math/rand"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

type testEdge struct {
	from, to  int
	cap, cost int64
}

func solve(t *testing.T, n int, edges []testEdge, s, sink int, want int64) (*FlowGraph, []int, int64, int64) {
	t.Helper()
	g := NewFlowGraph(n)
	ids := make([]int, len(edges))
	for i, e := range edges {
		id, err := g.AddEdge(e.from, e.to, e.cap, e.cost)
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	flow, cost, err := g.MinCostFlow(s, sink, want)
	if err != nil {
		t.Fatal(err)
	}
	return g, ids, flow, cost
}

// Hand-solved graphs: the expected flow and cost were worked on paper.
func TestMinCostFlowHandSolved(t *testing.T) {
	cases := []struct {
		name      string
		n         int
		edges     []testEdge
		want      int64
		wantFlow  int64
		wantCost  int64
		wantEdges []int64 // flow per edge, in order
	}{
		{
			// Two parallel routes: the cheap one (cost 1+1) carries its
			// capacity 3, the dear one (cost 2+3) the remaining 2.
			name: "two routes", n: 4,
			edges:    []testEdge{{0, 1, 3, 1}, {1, 3, 3, 1}, {0, 2, 5, 2}, {2, 3, 5, 3}},
			want:     5,
			wantFlow: 5, wantCost: 3*2 + 2*5, wantEdges: []int64{3, 3, 2, 2},
		},
		{
			// The classic case where the greedy first path must be undone:
			// 0→1→2→3 is cheapest (3) but blocks both 0→2 and 1→3; sending
			// 2 units needs 0→1→3 and 0→2→3 (cost 4+3), which the
			// residual reverse arc 2→1 finds.
			name: "needs a reverse arc", n: 4,
			edges:    []testEdge{{0, 1, 1, 1}, {1, 2, 1, 1}, {2, 3, 1, 1}, {0, 2, 1, 2}, {1, 3, 1, 3}},
			want:     2,
			wantFlow: 2, wantCost: 7, wantEdges: []int64{1, 0, 1, 1, 1},
		},
		{
			// Less capacity than wanted: the solver sends what it can.
			name: "short of capacity", n: 3,
			edges:    []testEdge{{0, 1, 4, 0}, {1, 2, 2, 7}},
			want:     10,
			wantFlow: 2, wantCost: 14, wantEdges: []int64{2, 2},
		},
		{
			// CAM-shaped: two classes (supplies 4 and 2) over two node
			// groups (capacities 3 and 10). Class A is 0 on group X and 10 on
			// Y; class B is 1 on X and 2 on Y. Optimum: A takes all of X
			// (3), its 4th slot goes to Y (10); B goes to Y (2 each):
			// 0 + 10 + 4 = 14. Putting B on X instead costs more (A's
			// loss of 10 per slot > B's gain of 1).
			name: "cam two classes", n: 6, // 0 src, 1 A, 2 B, 3 X, 4 Y, 5 sink
			edges: []testEdge{{0, 1, 4, 0}, {0, 2, 2, 0}, {1, 3, 99, 0}, {1, 4, 99, 10}, {2, 3, 99, 1}, {2, 4, 99, 2},
				{3, 5, 3, 0}, {4, 5, 10, 0}},
			want:     6,
			wantFlow: 6, wantCost: 14, wantEdges: []int64{4, 2, 3, 1, 0, 2, 3, 3},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, ids, flow, cost := solve(t, c.n, c.edges, 0, c.n-1, c.want)
			if flow != c.wantFlow || cost != c.wantCost {
				t.Fatalf("flow %d cost %d, want %d and %d", flow, cost, c.wantFlow, c.wantCost)
			}
			for i, id := range ids {
				if got := g.Flow(id); got != c.wantEdges[i] {
					t.Errorf("edge %d (%d→%d): flow %d, want %d", i, c.edges[i].from, c.edges[i].to, got, c.wantEdges[i])
				}
			}
		})
	}
}

func TestMinCostFlowBadInput(t *testing.T) {
	g := NewFlowGraph(2)
	if _, err := g.AddEdge(0, 5, 1, 1); err == nil {
		t.Error("edge to a missing node accepted")
	}
	if _, err := g.AddEdge(0, 1, 1, -1); err == nil {
		t.Error("negative cost accepted")
	}
	if _, _, err := g.MinCostFlow(0, 0, 1); err == nil {
		t.Error("source = sink accepted")
	}
	if _, _, err := g.MinCostFlow(0, 1, 1); !errors.Is(err, ErrNoPath) {
		t.Errorf("no edges: %v, want ErrNoPath", err)
	}
}

// The optimum agrees with an LP (gonum's simplex) on random graphs: min
// Σ cost·x, conservation at every node but the sink, 0 ≤ x ≤ cap (as
// x + slack = cap), for the amount the solver sent.
func TestMinCostFlowMatchesLP(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	compared := 0
	defer func() {
		if compared < 20 {
			t.Errorf("only %d of 40 random graphs compared with the LP (the rest had no path)", compared)
		}
	}()
	for trial := 0; trial < 40; trial++ {
		n := 4 + rng.Intn(5)
		var edges []testEdge
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if i != j && rng.Float64() < 0.45 {
					edges = append(edges, testEdge{i, j, int64(1 + rng.Intn(6)), int64(rng.Intn(10))})
				}
			}
		}
		g := NewFlowGraph(n)
		for _, e := range edges {
			if _, err := g.AddEdge(e.from, e.to, e.cap, e.cost); err != nil {
				t.Fatal(err)
			}
		}
		flow, cost, err := g.MinCostFlow(0, n-1, 1<<30)
		if errors.Is(err, ErrNoPath) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		// One conservation row per node with edges but the sink (its row
		// is dependent on the others), then one capacity row per edge.
		row := map[int]int{}
		for _, e := range edges {
			for _, v := range []int{e.from, e.to} {
				if _, ok := row[v]; !ok && v != n-1 {
					row[v] = len(row)
				}
			}
		}
		m, nc := len(edges), len(row)
		A := mat.NewDense(nc+m, 2*m, nil)
		b := make([]float64, nc+m)
		c := make([]float64, 2*m)
		for k, e := range edges {
			c[k] = float64(e.cost)
			if r, ok := row[e.from]; ok {
				A.Set(r, k, A.At(r, k)+1)
			}
			if r, ok := row[e.to]; ok {
				A.Set(r, k, A.At(r, k)-1)
			}
			A.Set(nc+k, k, 1)
			A.Set(nc+k, m+k, 1)
			b[nc+k] = float64(e.cap)
		}
		b[row[0]] = float64(flow)
		opt, _, err := lp.Simplex(c, A, b, 0, nil)
		if err != nil {
			t.Fatalf("trial %d: LP: %v", trial, err)
		}
		compared++
		if math.Abs(opt-float64(cost)) > 1e-6 {
			t.Fatalf("trial %d: flow %d costs %d, LP optimum %v", trial, flow, cost, opt)
		}
	}
}
