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

func TestLeeGPUSmoke(t *testing.T) {
	for _, r := range run(t, "lee-gpu", 1, nil) {
		t.Logf("%s %s %s", r.Name, r.Queue, r.Duration())
	}
}

func TestLeeGPUSteeredSmoke(t *testing.T) {
	res := run(t, "lee-gpu", 1, func(c *Cluster) {
		_, err := c.MutateConf(mustMutation(), false)
		if err != nil {
			t.Fatal(err)
		}
	})
	for _, r := range res {
		t.Logf("%s %s %s", r.Name, r.Queue, r.Duration())
	}
}
