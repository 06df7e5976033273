package experiment

import (
	"fmt"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// Isolation is a job's completion time running alone on the scenario's
// cluster under its stock queues (its queue may grow to its maximum
// capacity): the stand-alone time deadline goals are judged against.
func Isolation(sc *sim.Scenario, j sim.JobSpec, seed int64) (time.Duration, error) {
	one := *sc
	one.Generators = nil
	j.At, j.Repeat = 0, 1
	one.Jobs = []sim.JobSpec{j}
	c, err := sim.NewCluster(&one, seed)
	if err != nil {
		return 0, err
	}
	if !c.RunUntilDone(Limit) {
		return 0, fmt.Errorf("%s alone did not finish in %s", j.Name, Limit)
	}
	return c.Results()[0].Duration(), nil
}
