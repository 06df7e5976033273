package calibrate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// genHosts makes perHost map samples of class on each host, at speed ×
// a lognormal noise of sigma per attempt (the scenarios' noise_sigma).
func genHosts(r *rand.Rand, typ, class string, hosts []string, speed, sigma float64, perHost int) []Sample {
	var out []Sample
	for _, h := range hosts {
		for i := 0; i < perHost; i++ {
			sec := 60 / speed * math.Exp(sigma*r.NormFloat64())
			out = append(out, Sample{AttemptID: fmt.Sprintf("%s-%d", h, i), Class: class, NodeType: typ, Host: h,
				Elapsed: time.Duration(sec * float64(time.Second)), Bytes: 128 << 20})
		}
	}
	return out
}

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%02d", prefix, i+1)
	}
	return out
}

func TestTypeSplits(t *testing.T) {
	const typ = "cpu-16c-64g"
	for _, tc := range []struct {
		name      string
		samples   func(r *rand.Rand) []Sample
		wantSplit bool
		wantRatio float64
		wantRules []string
	}{
		{"two generations, one shape (hetero-100's cpu-old and cpu-new)", func(r *rand.Rand) []Sample {
			return append(genHosts(r, typ, "crypto", names("cpu-old-", 60), 1, 0.15, 5), genHosts(r, typ, "crypto", names("cpu-new-", 30), 1.5, 0.15, 5)...)
		}, true, 1.5, []string{`- {name: cpu-16c-64g-fast, host_pattern: "cpu-new-*"}`, `- {name: cpu-16c-64g-slow, host_pattern: "cpu-old-*"}`}},
		{"one generation with noise", func(r *rand.Rand) []Sample {
			return genHosts(r, typ, "crypto", names("worker-", 90), 1, 0.15, 5)
		}, false, 0, nil},
		{"one generation, few samples a host", func(r *rand.Rand) []Sample {
			return genHosts(r, typ, "crypto", names("worker-", 40), 1, 0.15, 3)
		}, false, 0, nil},
		{"one sick host is not a generation", func(r *rand.Rand) []Sample {
			return append(genHosts(r, typ, "sort", names("worker-", 20), 1, 0.15, 5), genHosts(r, typ, "sort", []string{"worker-99"}, 0.4, 0.05, 5)...)
		}, false, 0, nil},
		{"1.2× apart (hetero-100's sort on cpu-new) is not clear enough", func(r *rand.Rand) []Sample {
			return append(genHosts(r, typ, "sort", names("cpu-old-", 60), 1, 0.15, 5), genHosts(r, typ, "sort", names("cpu-new-", 30), 1.2, 0.15, 5)...)
		}, false, 0, nil},
		{"no prefix separates: one rule per host of the smaller group", func(r *rand.Rand) []Sample {
			return append(genHosts(r, typ, "etl", []string{"red", "green", "blue", "black"}, 1, 0.05, 5), genHosts(r, typ, "etl", []string{"gold", "amber"}, 2, 0.05, 5)...)
		}, true, 2, []string{`- {name: cpu-16c-64g-fast, host_pattern: "amber"}`, `- {name: cpu-16c-64g-fast, host_pattern: "gold"}`}},
		{"a history without hosts says nothing", func(r *rand.Rand) []Sample {
			ss := append(genHosts(r, typ, "crypto", names("cpu-old-", 10), 1, 0.15, 5), genHosts(r, typ, "crypto", names("cpu-new-", 10), 1.5, 0.15, 5)...)
			for i := range ss {
				ss[i].Host = ""
			}
			return ss
		}, false, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 5; seed++ {
				got := TypeSplits(tc.samples(rand.New(rand.NewPCG(seed, 7))), SplitOptions{})
				if !tc.wantSplit {
					if len(got) != 0 {
						t.Errorf("seed %d: split %+v where there is none", seed, got[0])
					}
					continue
				}
				if len(got) != 1 {
					t.Fatalf("seed %d: %d splits, want 1", seed, len(got))
				}
				sp := got[0]
				if math.Abs(sp.Ratio-tc.wantRatio) > 0.1*tc.wantRatio {
					t.Errorf("seed %d: ratio %.2f, want about %.2f", seed, sp.Ratio, tc.wantRatio)
				}
				why, rules := sp.Suggestion()
				if strings.Join(rules, "\n") != strings.Join(tc.wantRules, "\n") {
					t.Errorf("seed %d: rules\n%s\nwant\n%s", seed, strings.Join(rules, "\n"), strings.Join(tc.wantRules, "\n"))
				}
				if !strings.Contains(why, "node type "+typ) || !strings.Contains(why, "same resources") {
					t.Errorf("seed %d: %q", seed, why)
				}
			}
		})
	}
}
