package yarn

import (
	"reflect"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// A listing costs what ContainersOf spends: one request when the AM
// container names the attempt, two when the attempts must be read first.
func TestListingCost(t *testing.T) {
	for _, tc := range []struct {
		name string
		app  cluster.App
		want int
	}{
		{"AM container names the attempt", cluster.App{ID: "application_1795412916926_0003", AMContainerID: "container_1795412916926_0003_01_000001"}, 1},
		{"epoch-prefixed AM container", cluster.App{ID: "application_1795412916926_0003", AMContainerID: "container_e17_1795412916926_0003_02_000001"}, 1},
		{"no AM container yet", cluster.App{ID: "application_1795412916926_0003"}, 2},
		{"AM container of another app", cluster.App{ID: "application_1795412916926_0003", AMContainerID: "container_1795412916926_0004_01_000001"}, 2},
	} {
		if got := listingCost(tc.app); got != tc.want {
			t.Errorf("%s: cost %d, want %d", tc.name, got, tc.want)
		}
	}
}

// The budget counts requests spent: a budget of n lists n one-request
// apps, not n/2.
func TestListingsWithin(t *testing.T) {
	for _, tc := range []struct {
		name   string
		costs  []int
		budget int
		want   []bool
	}{
		{"one request each: as many as the budget", []int{1, 1, 1, 1, 1}, 4, []bool{true, true, true, true, false}},
		{"two each: half as many", []int{2, 2, 2, 2}, 4, []bool{true, true, false, false}},
		{"a cheaper one still fits after a dearer one did not", []int{1, 1, 2, 1}, 3, []bool{true, true, false, true}},
		{"no bound", []int{2, 2, 1}, -1, []bool{true, true, true}},
		{"nothing wanted", nil, 200, []bool{}},
		{"the default at scale-10k: 200 of 5,000", ones(5000), defaultListingBudget, firstN(5000, 200)},
	} {
		if got := listingsWithin(tc.costs, tc.budget); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, trueCount(got), trueCount(tc.want))
		}
	}
}

func ones(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

func firstN(n, k int) []bool {
	out := make([]bool, n)
	for i := range k {
		out[i] = true
	}
	return out
}

func trueCount(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}
