package experiment

import (
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

func TestZZTiny(t *testing.T) {
	for _, sc := range []string{"fb-2009-saturated"} {
		st, _ := RunStatic(sc, 1, nil)
		s := time.Now()
		sd, err := RunSidecar(sc, 1, SidecarOptions{WarmupSeed: 101, MCSamples: 50})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("sidecar wall %v applied %d", time.Since(s), sd.Applied)
		for _, r := range []Result{st, sd} {
			for _, cl := range []string{"fb-tiny", "fb-small", "fb-large"} {
				var wait, run time.Duration
				n := 0
				var jobs []sim.JobResult
				for _, j := range r.Jobs {
					if j.Class != cl {
						continue
					}
					jobs = append(jobs, j)
					wait += j.Start.Sub(j.Submit)
					run += j.Finish.Sub(j.Start)
					n++
				}
				t.Logf("%s %s %s n=%d wait(AM)=%v run=%v mean=%v median=%v", sc, r.Mode, cl, n, wait/time.Duration(n), run/time.Duration(n), MeanCompletion(jobs), MedianCompletion(jobs))
			}
		}
	}
}
