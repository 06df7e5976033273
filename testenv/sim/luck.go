package sim

import (
	"hash/fnv"
	"math/rand/v2"
	"strconv"
)

// luckFor is the random stream of one thing the run draws after the
// arrivals: a job's replica placement, a task attempt's time noise. Each
// is keyed by what it is for, not drawn in event order from one stream,
// so two runs of the same jobs under different configurations draw the
// same noise for the same task attempt and place the same job's blocks on
// the same hosts (common random numbers). With one shared stream, the
// first container placed otherwise shifted every later draw: a sidecar run
// and the stock run it is compared with differed by their luck as much as
// by their configuration, and the harm figures measured both. A task's
// time noise is the task's own (its input split), as on a real cluster;
// which node runs it still sets its speed.
func (c *Cluster) luckFor(key ...string) *rand.Rand {
	h := fnv.New64a()
	for _, k := range key {
		h.Write([]byte(k))
		h.Write([]byte{0})
	}
	return rand.New(rand.NewPCG(c.luckSeed, h.Sum64()))
}

// appLuck keys a job's draws by its name and arrival order (the same in
// every run of the scenario's arrivals).
func appLuck(a *app) string { return strconv.Itoa(a.seq) + "/" + a.name }
