package sim

import (
	"testing"
	"time"
)

func run(t *testing.T, name string, seed int64, mutate func(*Cluster)) []JobResult {
	t.Helper()
	sc, err := LoadScenario(name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCluster(sc, seed)
	if err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(c)
	}
	if !c.RunUntilDone(24 * time.Hour) {
		t.Fatalf("%s did not finish in 24h of virtual time", name)
	}
	return c.Results()
}

// The GPU case in the mini cluster alone: routing crypto to the GPU
// partition (what the sidecar learns to do) makes it faster than under the
// stock 50/50 queues (Lee §4.4.2).
func TestLeeGPUStaticRoutingHelpsCrypto(t *testing.T) {
	stock := map[string]time.Duration{}
	for _, r := range run(t, "lee-gpu", 1, nil) {
		stock[r.Name] = r.Duration()
	}
	res := run(t, "lee-gpu", 1, func(c *Cluster) {
		if _, err := c.MutateConf(mustMutation(), false); err != nil {
			t.Fatal(err)
		}
	})
	for _, r := range res {
		if r.Name == "crypto" && r.Duration() >= stock["crypto"] {
			t.Errorf("crypto on the GPU partition took %s, stock %s", r.Duration(), stock["crypto"])
		}
	}
}
