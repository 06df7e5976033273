package experiment

import (
	"os"
	"testing"
	"time"
)

func TestHeteroSmoke(t *testing.T) {
	if os.Getenv("HETERO") == "" {
		t.Skip("set HETERO=1")
	}
	t0 := time.Now()
	stock, err := RunStatic("hetero-100", 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stock in %s", time.Since(t0))
	t1 := time.Now()
	side, err := RunSidecar("hetero-100", 5, SidecarOptions{WarmupSeed: 105})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sidecar in %s, applied %d cycles %d", time.Since(t1), side.Applied, side.Cycles)
	mean := func(r Result) time.Duration {
		var s time.Duration
		for _, j := range r.Jobs {
			s += j.Duration()
		}
		return s / time.Duration(len(r.Jobs))
	}
	t.Logf("mean job time stock %s sidecar %s", mean(stock), mean(side))
	byClass := func(r Result) map[string]time.Duration {
		s, n := map[string]time.Duration{}, map[string]int{}
		for _, j := range r.Jobs {
			s[j.Class] += j.Duration()
			n[j.Class]++
		}
		for k := range s {
			s[k] /= time.Duration(n[k])
		}
		return s
	}
	t.Logf("by class stock %v\nsidecar %v", byClass(stock), byClass(side))
}
