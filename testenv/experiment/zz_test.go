package experiment

import (
	"testing"
	"time"
)

func TestZZTiny(t *testing.T) {
	for _, sc := range []string{"fb-2009-saturated"} {
		st, _ := RunStatic(sc, 1, nil)
		sd, err := RunSidecar(sc, 1, SidecarOptions{WarmupSeed: 101, MCSamples: 50})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []Result{st, sd} {
			var wait, run time.Duration
			n := 0
			for _, j := range r.Jobs {
				if j.Class != "fb-tiny" {
					continue
				}
				wait += j.Start.Sub(j.Submit)
				run += j.Finish.Sub(j.Start)
				n++
			}
			t.Logf("%s %s tiny n=%d wait(AM)=%v run=%v", sc, r.Mode, n, wait/time.Duration(n), run/time.Duration(n))
		}
	}
}
