package sim

import (
	"testing"
	"time"
)

// A node relabelled while containers run on it takes their usage to its new
// partition (CapacityScheduler.updateLabelsOnNode); once every job is done
// no queue holds anything in any partition. Before, a container started in
// one partition and released in another left a phantom in the first: the
// queue looked over its share there for the rest of the run.
func TestRelabelMovesRunningUsage(t *testing.T) {
	sc, err := LoadScenario("hetero-100")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCluster(sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	var busy *node
	for busy == nil && !c.Done() {
		c.Step(30 * time.Second)
		for _, n := range c.nodes {
			if n.label == "" && n.containers > 0 {
				busy = n
				break
			}
		}
	}
	if busy == nil {
		t.Fatal("no default-partition node ever ran a container")
	}
	before := map[string]int64{}
	for q, ps := range c.usage {
		for _, r := range ps {
			before[q] += r.MemoryMB
		}
	}
	held := int64(0)
	for _, r := range c.onNode[busy.id] {
		held += r.MemoryMB
	}
	rootDefault := c.usage["root"][""].MemoryMB
	if err := c.ReplaceNodeLabels(map[string][]string{busy.id: {"gpu"}}); err != nil {
		t.Fatal(err)
	}
	if got := c.usage["root"][""].MemoryMB; got != rootDefault-held || held == 0 {
		t.Fatalf("root's default-partition usage %d MB after the relabel, want %d - %d", got, rootDefault, held)
	}
	for q, ps := range c.usage {
		total := int64(0)
		for _, r := range ps {
			total += r.MemoryMB
		}
		if total != before[q] {
			t.Fatalf("queue %s holds %d MB over all partitions after the relabel, %d before", q, total, before[q])
		}
	}
	c.Step(10 * time.Minute)
	if err := c.ReplaceNodeLabels(map[string][]string{busy.id: nil}); err != nil {
		t.Fatal(err)
	}
	for !c.Done() {
		c.Step(time.Minute)
	}
	for q, ps := range c.usage {
		for p, r := range ps {
			if r.MemoryMB != 0 || r.VCores != 0 {
				t.Errorf("queue %s still holds %+v in partition %q after every job finished", q, r, p)
			}
		}
	}
}
