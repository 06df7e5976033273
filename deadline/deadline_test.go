package deadline

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Digest 001 §4.3's worked example: constants, bounds at S=128, α=0.5, h=4,
// and the single-pool containers at D=900 s, h=20.
func TestMalekimajdWorkedExample(t *testing.T) {
	p := Profile{NM: 400, MapAvg: 40, MapMax: 70, NR: 48, ShAvg: 60, ShMax: 90, ReduceAvg: 30, ReduceMax: 45, Sh1Avg: 15, Sh1Max: 20}
	low, up, avg := p.Bounds()
	cases := []struct {
		name    string
		got     Constants
		a, b, c float64
	}{
		{"low", low, 16000, 4320, -45}, {"up", up, 15860, 4050, 430}, {"avg", avg, 15930, 4185, 192.5},
	}
	for _, tc := range cases {
		if tc.got.A != tc.a || tc.got.B != tc.b || tc.got.C != tc.c {
			t.Errorf("%s: %+v, want A=%v B=%v C=%v", tc.name, tc.got, tc.a, tc.b, tc.c)
		}
	}
	s := 128 * 0.5
	for _, tc := range []struct {
		name string
		c    Constants
		want float64
	}{{"T_low", low, 1225.0}, {"T_up", up, 1674.4}, {"T_avg", avg, 1449.7}} {
		if got := tc.c.Time(4, s, s); math.Abs(got-tc.want) > 0.05 {
			t.Errorf("%s = %.1f, want %.1f", tc.name, got, tc.want)
		}
	}
	n, err := avg.ContainersFor(20, 900)
	if err != nil || math.Abs(n-568.6) > 0.05 {
		t.Errorf("containers for 900 s: %.1f %v, want 568.6", n, err)
	}
	g, _ := Gamma(avg, 2, 2, 900)
	if math.Abs(g-25.756) > 0.001 {
		t.Errorf("γ = %.3f, want 25.756", g)
	}
	if _, err := avg.ContainersFor(1, 100); err != ErrInfeasible {
		t.Errorf("deadline before C: %v", err)
	}
}

// E7: a one-task job's A^up would be negative; it is guarded.
func TestTinyJobGuard(t *testing.T) {
	_, up, _ := Profile{NM: 1, MapAvg: 10, MapMax: 10}.Bounds()
	if up.A < 0 || up.Time(1, 1, 1) < 20 {
		t.Fatalf("tiny job upper bound %+v", up)
	}
}

// The greedy solves (P2) exactly: compare with brute force over a grid.
func TestGreedyMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for k := 0; k < 200; k++ {
		cl := []Class{
			{Gamma: 1 + 9*r.Float64(), P: 50 * r.Float64(), HLow: float64(r.IntN(3)), HUp: 0},
			{Gamma: 1 + 9*r.Float64(), P: 50 * r.Float64(), HLow: float64(r.IntN(3)), HUp: 0},
		}
		for i := range cl {
			cl[i].HUp = cl[i].HLow + float64(1+r.IntN(10))
		}
		rbar, rho := 20+40*r.Float64(), 1+2*r.Float64()
		delta := rho + 1 + 5*r.Float64()
		g := SolveP2(cl, rbar, rho, delta)
		best := math.Inf(1)
		for h0 := cl[0].HLow; h0 <= cl[0].HUp+1e-9; h0 += (cl[0].HUp - cl[0].HLow) / 100 {
			for h1 := cl[1].HLow; h1 <= cl[1].HUp+1e-9; h1 += (cl[1].HUp - cl[1].HLow) / 100 {
				load := cl[0].Gamma*h0 + cl[1].Gamma*h1
				o := rho*math.Min(load, rbar) + delta*math.Max(0, load-rbar) - cl[0].P*h0 - cl[1].P*h1
				best = math.Min(best, o)
			}
		}
		if g.Objective > best+1e-6 {
			t.Fatalf("case %d: greedy %v worse than brute force %v", k, g.Objective, best)
		}
	}
}

// Eq. 5.1 recovers μ, σ from synthetic log-normal data.
func TestFitRecoversLogNormal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []LogNormal{{Mu: 3, Sigma: 0.3}, {Mu: 5, Sigma: 0.8}} {
		x := make([]float64, 20000)
		for i := range x {
			x[i] = math.Exp(tc.Mu + tc.Sigma*r.NormFloat64())
		}
		got, ok := Fit(x)
		if !ok || math.Abs(got.Mu-tc.Mu) > 0.03 || math.Abs(got.Sigma-tc.Sigma)/tc.Sigma > 0.05 {
			t.Errorf("fit %+v, want %+v", got, tc)
		}
	}
}

func TestSimulateAndMinContainers(t *testing.T) {
	m := PhaseModel{Map: LogNormal{Mu: math.Log(60), Sigma: 0.1}, Reduce: LogNormal{Mu: math.Log(30), Sigma: 0.1},
		Shuffle1: LogNormal{Mu: math.Log(10), Sigma: 0.1}, Shuffle2: LogNormal{Mu: math.Log(10), Sigma: 0.1}, HasReduce: true}
	w := Work{Maps: 100, Reduces: 2}
	a, b := Simulate(m, w, 10, nil, 500, 42), Simulate(m, w, 10, nil, 500, 42)
	if a.Quantile(0.5) != b.Quantile(0.5) {
		t.Fatal("not reproducible for a seed")
	}
	// 100 maps of ~60 s on 10 containers ≈ 600 s + 40 s of reduce.
	if p50 := a.Quantile(0.5); p50 < 600 || p50 > 720 {
		t.Fatalf("p50 %v", p50)
	}
	prev := 0.0
	for _, k := range []int{5, 10, 20, 40} {
		p := Simulate(m, w, k, nil, 500, 42).P(700)
		if p+1e-9 < prev {
			t.Fatalf("P(meet) fell from %v to %v with more containers", prev, p)
		}
		prev = p
	}
	need, ok := MinContainers(m, w, 400, 0.9, 200, 300, 42)
	if !ok || need < 15 || need > 25 {
		t.Fatalf("containers for 400 s: %d %v (≈100·60/(400−40) ≈ 17)", need, ok)
	}
	if _, ok := MinContainers(m, w, 50, 0.9, 200, 300, 42); ok {
		t.Fatal("a 50 s deadline cannot be met")
	}
}

func TestGoals(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		tags []string
		slo  map[string]time.Duration
		want time.Time
		has  bool
		err  bool
	}{
		{"relative tag", []string{"deadline=+90m"}, nil, t0.Add(90 * time.Minute), true, false},
		{"absolute tag", []string{"deadline=2026-01-01t03:00:00z"}, nil, t0.Add(3 * time.Hour), true, false},
		{"class SLO", nil, map[string]time.Duration{"etl": 2 * time.Hour}, t0.Add(2 * time.Hour), true, false},
		{"none", nil, nil, time.Time{}, false, false},
		{"malformed", []string{"deadline=soon"}, nil, time.Time{}, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, has, err := GoalOf(cluster.App{ID: "a", StartedTime: t0, Tags: tc.tags}, "etl", tc.slo)
			if (err != nil) != tc.err || has != tc.has || !g.Deadline.Equal(tc.want) {
				t.Fatalf("got %v %v %v", g, has, err)
			}
		})
	}
}
