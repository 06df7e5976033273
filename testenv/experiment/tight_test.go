package experiment

import "testing"

// hetero-100-tight must bite: stock YARN misses at least a fifth of its
// goals (issue 18), all of which are feasible by construction.
func TestTightDeadlinesBite(t *testing.T) {
	r, err := RunStatic("hetero-100-tight", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	met, total := DeadlinesMet(r.Jobs)
	if total == 0 || float64(met) > 0.8*float64(total) {
		t.Errorf("stock met %d/%d goals, want at most 80%%", met, total)
	}
}
