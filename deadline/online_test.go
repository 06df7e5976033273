package deadline

import (
	"math"
	"testing"
)

func TestWithOwnMaps(t *testing.T) {
	class := PhaseModel{Map: LogNormal{Mu: math.Log(60), Sigma: 0.3}, JobSigma: 0.3}
	tests := []struct {
		name      string
		m         PhaseModel
		own       []float64
		wantMu    float64
		wantSigma float64 // JobSigma after
	}{
		{"no own maps: class model", class, nil, math.Log(60), 0.3},
		{"no spread between runs: class model", PhaseModel{Map: class.Map}, []float64{30, 30}, math.Log(60), 0},
		// σ²/J² = 1: one own map weighs as much as the class prior.
		{"one map halfway", class, []float64{30}, (math.Log(60) + math.Log(30)) / 2, 0.3 / math.Sqrt(2)},
		// Nine maps: weight 9/10 on their mean log.
		{"nine maps dominate", class, []float64{30, 30, 30, 30, 30, 30, 30, 30, 30}, 0.1*math.Log(60) + 0.9*math.Log(30), 0.3 / math.Sqrt(10)},
		{"zero durations are skipped", class, []float64{0, 30}, (math.Log(60) + math.Log(30)) / 2, 0.3 / math.Sqrt(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := WithOwnMaps(tt.m, tt.own)
			if math.Abs(got.Map.Mu-tt.wantMu) > 1e-9 || math.Abs(got.JobSigma-tt.wantSigma) > 1e-9 {
				t.Errorf("μ %.6f JobSigma %.6f, want %.6f %.6f", got.Map.Mu, got.JobSigma, tt.wantMu, tt.wantSigma)
			}
			if got.Map.Sigma != tt.m.Map.Sigma || got.Reduce != tt.m.Reduce {
				t.Errorf("task spread or other phases changed: %+v", got)
			}
		})
	}
}
