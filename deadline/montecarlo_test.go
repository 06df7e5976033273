package deadline

import (
	"math"
	"testing"
)

// Reduces launched at slow-start hold their own containers: with the maps
// done and 8 reduces running on 8 containers, the job ends after about one
// reduce, not eight in a row on the one container left for maps.
func TestSimulateReducesOnTheirOwnContainers(t *testing.T) {
	m := PhaseModel{Map: LogNormal{Mu: math.Log(60), Sigma: 0.01}, Reduce: LogNormal{Mu: math.Log(30), Sigma: 0.01},
		Shuffle1: LogNormal{Mu: math.Log(5), Sigma: 0.01}, Shuffle2: LogNormal{Mu: math.Log(5), Sigma: 0.01}, HasReduce: true}
	got := Simulate(m, Work{Reduces: 8, ReduceHeld: 8}, 1, nil, 200, 1).Quantile(0.5)
	if got > 40 {
		t.Fatalf("8 running reduces on 8 containers: median %.0f s, want about one reduce (35 s)", got)
	}
	serial := Simulate(m, Work{Reduces: 8}, 1, nil, 200, 1).Quantile(0.5)
	if serial < 8*30 {
		t.Fatalf("8 reduces on one container: median %.0f s, want at least 240 s", serial)
	}
}

// Workers beyond what a job's tasks can reach are not simulated: the
// distribution is the one every worker simulated gives, to the bit, for
// jobs with and without reduces, held reduce containers, finished
// residual maps and a job-to-job spread, and any worker count around the
// cut.
func TestSimulateIdleWorkersChangeNothing(t *testing.T) {
	ln := func(mean, sigma float64) LogNormal { return LogNormal{Mu: math.Log(mean), Sigma: sigma} }
	withReduce := PhaseModel{Map: ln(60, 0.4), Shuffle1: ln(5, 0.3), Shuffle2: ln(8, 0.3), Reduce: ln(30, 0.5), HasReduce: true, JobSigma: 0.2}
	mapOnly := PhaseModel{Map: ln(40, 0.6)}
	cases := []struct {
		name string
		m    PhaseModel
		w    Work
	}{
		{"maps and reduces", withReduce, Work{Maps: 7, Reduces: 3}},
		{"running maps, some done", withReduce, Work{Maps: 4, Reduces: 5, MapResidual: []float64{0, 0.5, 0, 0.9}}},
		{"reduces held at slow-start", withReduce, Work{Maps: 2, Reduces: 6, ReduceHeld: 4, MapResidual: []float64{0.3}}},
		{"more held than reduces", withReduce, Work{Maps: 3, Reduces: 2, ReduceHeld: 5}},
		{"reduces only", withReduce, Work{Reduces: 4}},
		{"map-only class", mapOnly, Work{Maps: 9, Reduces: 3, MapResidual: []float64{0.1, 0.2}}},
		{"nothing left", withReduce, Work{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			busy := busyWorkers(c.m, c.w, 1<<20, nil)
			if busy > len(c.w.MapResidual)+c.w.Maps+c.w.Reduces+1 {
				t.Fatalf("busy workers %d exceed the job's tasks", busy)
			}
			for k := 1; k <= 3*busy+2; k++ {
				got := Simulate(c.m, c.w, k, nil, 60, 7).T
				want := simulate(c.m, c.w, k, nil, 60, 7).T
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%d workers (busy %d): run %d ends at %v, every worker simulated %v", k, busy, i, got[i], want[i])
					}
				}
			}
		})
	}
}

// Workers arriving with a delay, or running at different speeds, each
// change the outcome: none is cut.
func TestBusyWorkersKeepsArrivalsAndSpeeds(t *testing.T) {
	w := Work{Maps: 2}
	if got := busyWorkers(PhaseModel{Arrival: LogNormal{Mu: 1, Sigma: 0.1}}, w, 50, nil); got != 50 {
		t.Fatalf("with arrival delays: %d workers simulated, want 50", got)
	}
	if got := busyWorkers(PhaseModel{}, w, 50, []float64{1, 2}); got != 50 {
		t.Fatalf("with speeds: %d workers simulated, want 50", got)
	}
	if got := busyWorkers(PhaseModel{}, w, 50, nil); got != 2 {
		t.Fatalf("two maps, no delay: %d workers simulated, want 2", got)
	}
}

// The bisection up to a queue's maximum does not simulate that maximum
// (issue 19: per job × per slot of the cluster): a job of 40 tasks bounded
// by 2^50 containers — more than memory can hold as a slice, so a run of
// that many workers would panic — is answered.
func TestMinContainersIndependentOfQueueMax(t *testing.T) {
	m := PhaseModel{Map: LogNormal{Mu: math.Log(60), Sigma: 0.3}, Reduce: LogNormal{Mu: math.Log(20), Sigma: 0.3}, HasReduce: true}
	w := Work{Maps: 30, Reduces: 10}
	small, okSmall := MinContainers(m, w, 200, 0.9, 1000, 100, 3)
	if !okSmall || small > 40 {
		t.Fatalf("bounded by 1000: need %d (ok %v), want at most the 40 tasks", small, okSmall)
	}
	huge, okHuge := MinContainers(m, w, 200, 0.9, 1<<50, 100, 3)
	if !okHuge || huge > 40 {
		t.Fatalf("bounded by 2^50: need %d (ok %v), want at most the 40 tasks", huge, okHuge)
	}
}
