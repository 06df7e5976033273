package deadline

import (
	"math"
	"testing"
)

func TestResidualsPooled(t *testing.T) {
	r := &Residuals{Max: 10, MinN: 3}
	add := func(class string, logs ...float64) {
		for _, l := range logs {
			r.Add(Residual{Class: class, Stage: 20, Ratio: math.Exp(l)})
		}
	}
	// Donors at stage 20: a (median 0.2, deviations −0.2 0 0.2) and b
	// (median 0.6, deviations −0.1 0 0.3); m₀ = median(0.2, 0.6) = 0.4.
	add("a", 0, 0.2, 0.4)
	add("b", 0.5, 0.6, 0.9)
	add("c", 1.0) // one run of its own: z = 1/(1+3)
	add("t"+TypedReducesSuffix, 0, 0, 0)
	r.Add(Residual{Class: "a", Stage: 10, Ratio: 1})
	tests := []struct {
		name  string
		key   string
		stage int
		below int
		want  []float64 // logs, donors in key order
	}{
		{"no runs of its own: the donors' deviations around m₀", "d", 20, 0, []float64{0.2, 0.4, 0.6, 0.3, 0.4, 0.7}},
		// centre 0.25·1.0 + 0.75·0.4 = 0.55
		{"one run of its own moves the centre a quarter of the way", "c", 20, 0, []float64{0.35, 0.55, 0.75, 0.45, 0.55, 0.85}},
		{"a class with MinN of its own: none", "a", 20, 0, nil},
		// below 4: a is pooled too, and no donor of itself: b alone,
		// m₀ 0.6, z = 3/(3+4), centre 3/7·0.2 + 4/7·0.6 = 3/7
		{"below 4: a donor pools with the others only", "a", 20, 4, []float64{3.0/7*0.2 + 4.0/7*0.6 - 0.1, 3.0/7*0.2 + 4.0/7*0.6, 3.0/7*0.2 + 4.0/7*0.6 + 0.3}},
		// below 4: c's one run has z = 1/5, centre 0.2 + 0.8·0.4 = 0.52
		{"below 4: the credibility counts to below", "c", 20, 4, []float64{0.32, 0.52, 0.72, 0.42, 0.52, 0.82}},
		{"typed outlooks pool with typed donors only", "c" + TypedReducesSuffix, 20, 0, []float64{0, 0, 0}},
		{"no class has MinN at the stage: none", "d", 10, 0, nil},
		{"no stage 50 anywhere", "d", 50, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.Pooled(tt.key, tt.stage, tt.below)
			if len(got) != len(tt.want) {
				t.Fatalf("Pooled(%s, %d) = %v, want exp of %v", tt.key, tt.stage, got, tt.want)
			}
			for i := range got {
				if math.Abs(math.Log(got[i])-tt.want[i]) > 1e-9 {
					t.Errorf("Pooled(%s, %d)[%d] = exp(%v), want exp(%v)", tt.key, tt.stage, i, math.Log(got[i]), tt.want[i])
				}
			}
		})
	}
	if got := (*Residuals)(nil).Pooled("d", 20, 0); got != nil {
		t.Errorf("nil Residuals: Pooled = %v, want nil", got)
	}
}

// An outlook of a class without residuals takes, under PoolEarly, the
// spread of a class that has them (its own P50 stays the model's); not
// without PoolEarly, and not when its class has enough of its own.
func TestReportPoolEarly(t *testing.T) {
	now, models, snap, classOf := etlOutlook()
	slow := []float64{1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0}
	tests := []struct {
		name      string
		res       []Residual
		pool      bool
		wantPMeet float64 // deadline 50 s away
		wantN     int     // own residuals
		wantPool  int
	}{
		{"off: the model's own spread", residualsAt("sort", 20, slow), false, 1, 0, 0},
		// sort's ten, centred on their own median (no etl runs): 40·r,
		// 50 is 2.5/11 of the way as with etl's own.
		{"on: sort's spread", residualsAt("sort", 20, slow), true, 2.5 / 11, 0, 10},
		{"on, no class has enough: the model's", residualsAt("sort", 20, slow[:9]), true, 1, 0, 0},
		{"on, etl has its own: those", residualsAt("etl", 20, slow), true, 2.5 / 11, 10, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewResiduals()
			for _, x := range tt.res {
				r.Add(x)
			}
			j := Report(snap, models, ReportOptions{ClassOf: classOf, Samples: 20, Residuals: r, PoolEarly: tt.pool})[0].Jobs[0]
			if j.PMeet == nil || math.Abs(*j.PMeet-tt.wantPMeet) > 1e-12 || j.Residuals != tt.wantN || j.Pooled != tt.wantPool {
				t.Errorf("P(meet) %v from %d own and %d pooled residuals, want %v from %d and %d", j.PMeet, j.Residuals, j.Pooled, tt.wantPMeet, tt.wantN, tt.wantPool)
			}
			if tt.wantN == 0 {
				if got := j.P50.Sub(now).Seconds(); math.Abs(got-40) > 1e-6 {
					t.Errorf("p50 in %v s, want the model's 40", got)
				}
			}
		})
	}
}

func TestCredibilityK(t *testing.T) {
	// Donors a and b of TestResidualsPooled: |deviations| 0.2 0 0.2 0.1
	// 0 0.3, median 0.15, σ² = (1.4826·0.15)²; medians 0.2 and 0.6 of 3
	// runs each: sample variance 0.08, less (π/2)·σ²/3.
	devs := []float64{-0.2, 0, 0.2, -0.1, 0, 0.3}
	sigma2 := (1.4826 * 0.15) * (1.4826 * 0.15)
	tau2 := 0.08 - math.Pi/2*sigma2/3
	for _, tc := range []struct {
		name    string
		devs    []float64
		medians []float64
		ns      []float64
		want    float64
	}{
		{"σ²/τ²", devs, []float64{0.2, 0.6}, []float64{3, 3}, sigma2 / tau2}, // ≈ 0.914
		{"one donor: the fallback", devs, []float64{0.2}, []float64{3}, 7},
		{"no spread within classes: the fallback", []float64{0, 0, 0}, []float64{0.2, 0.6}, []float64{3, 3}, 7},
		{"medians closer than their noise: pooled whole", devs, []float64{0.4, 0.41}, []float64{3, 3}, math.Inf(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := credibilityK(tc.devs, tc.medians, tc.ns, 7)
			if !(math.Abs(got-tc.want) < 1e-9 || math.IsInf(got, 1) && math.IsInf(tc.want, 1)) {
				t.Errorf("credibilityK = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestResidualsPooledEB(t *testing.T) {
	r := &Residuals{Max: 10, MinN: 3}
	for class, logs := range map[string][]float64{"a": {0, 0.2, 0.4}, "b": {0.5, 0.6, 0.9}, "c": {1.0}} {
		for _, l := range logs {
			r.Add(Residual{Class: class, Stage: 20, Ratio: math.Exp(l)})
		}
	}
	// k = σ²/τ² ≈ 0.914 (TestCredibilityK): c's one run has z = 1/(1+k)
	// ≈ 0.52, centre z·1.0 + (1−z)·0.4 ≈ 0.71, and the deviations
	// widened by √(1 + 1/(1+k)) ≈ 1.23.
	sigma2 := (1.4826 * 0.15) * (1.4826 * 0.15)
	k := sigma2 / (0.08 - math.Pi/2*sigma2/3)
	z := 1 / (1 + k)
	centre, widen := z*1.0+(1-z)*0.4, math.Sqrt(1+1/(1+k))
	got := r.PooledEB("c", 20, 0)
	devs := []float64{-0.2, 0, 0.2, -0.1, 0, 0.3}
	if len(got) != len(devs) {
		t.Fatalf("PooledEB = %v, want %d", got, len(devs))
	}
	for i, d := range devs {
		if want := centre + widen*d; math.Abs(math.Log(got[i])-want) > 1e-9 {
			t.Errorf("PooledEB[%d] = exp(%v), want exp(%v)", i, math.Log(got[i]), want)
		}
	}
	// With no runs of its own, the centre is m₀ = 0.4, widened by √(1+1/k).
	got = r.PooledEB("d", 20, 0)
	if want := 0.4 + math.Sqrt(1+1/k)*0.3; len(got) != 6 || math.Abs(math.Log(got[5])-want) > 1e-9 {
		t.Errorf("PooledEB(d) = %v, last want exp(%v)", got, want)
	}
}
