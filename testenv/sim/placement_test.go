package sim

import (
	"fmt"
	"strings"
	"testing"
)

// data-split puts the compute-only nodes in racks 0..1 and each queue's
// input on its own racks' DataNodes; replicas never leave those racks.
func TestRackPlacementKeys(t *testing.T) {
	sc, err := LoadScenario("data-split")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCluster(sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	racksOf := map[string]map[string]int{}
	rackOfHost := map[string]string{}
	for _, n := range c.nodes {
		if racksOf[n.typ] == nil {
			racksOf[n.typ] = map[string]int{}
		}
		racksOf[n.typ][n.rack]++
		rackOfHost[n.host] = n.rack
	}
	if len(racksOf["compute"]) != 2 || racksOf["compute"]["/rack-00"] != 4 || racksOf["compute"]["/rack-01"] != 4 {
		t.Errorf("compute nodes by rack %v, want 4 in each of /rack-00 and /rack-01", racksOf["compute"])
	}
	if len(racksOf["storage"]) != 4 {
		t.Errorf("storage nodes by rack %v, want all 4 racks", racksOf["storage"])
	}
	cases := []struct {
		racks []int
		allow map[string]bool
	}{
		{[]int{0, 1}, map[string]bool{"/rack-00": true, "/rack-01": true}},
		{[]int{2, 3}, map[string]bool{"/rack-02": true, "/rack-03": true}},
		{[]int{2}, map[string]bool{"/rack-02": true}},
	}
	for _, cs := range cases {
		for i := 0; i < 200; i++ {
			hosts := c.placeReplicasIn(c.luckFor("test"), cs.racks)
			if len(hosts) != 3 {
				t.Fatalf("racks %v: %d replicas %v, want 3", cs.racks, len(hosts), hosts)
			}
			seen := map[string]bool{}
			for _, h := range hosts {
				if !cs.allow[rackOfHost[h]] || !strings.HasPrefix(h, "storage-") || seen[h] {
					t.Fatalf("racks %v: replicas %v (rack of %s: %s)", cs.racks, hosts, h, rackOfHost[h])
				}
				seen[h] = true
			}
			if len(cs.racks) > 1 && rackOfHost[hosts[0]] == rackOfHost[hosts[1]] {
				t.Fatalf("racks %v: second replica %v on the first's rack", cs.racks, hosts)
			}
		}
	}
	byQueue := map[string]string{}
	for _, j := range c.specs {
		byQueue[j.Queue] = fmt.Sprint(j.InputRacks)
	}
	if byQueue["east"] != "[0 1]" || byQueue["west"] != "[2 3]" || byQueue["crunch"] != "[]" {
		t.Errorf("generated jobs' input racks %v", byQueue)
	}
}

func TestRackPlacementKeysRejectBadRacks(t *testing.T) {
	head := "name: x\nracks: 2\nconf: {yarn.scheduler.capacity.root.queues: a}\nclasses: [{name: c, map_seconds: 1}]\n"
	cases := []struct{ yaml, want string }{
		{head + "node_types: [{name: s, count: 2, memory_mb: 1024, vcores: 1, racks: [2]}]\n", "node_types[0].racks: rack 2 is outside 0..1"},
		{head + "node_types: [{name: s, count: 2, memory_mb: 1024, vcores: 1}]\ngenerators: [{class: c, count: 1, maps_min: 1, maps_max: 1, input_racks: [5]}]\n",
			"generators[0].input_racks: rack 5 is outside"},
		{head + "node_types: [{name: s, count: 2, memory_mb: 1024, vcores: 1, racks: [0]}, {name: g, count: 2, memory_mb: 1024, vcores: 1, datanode: false, racks: [1]}]\n" +
			"generators: [{class: c, count: 1, maps_min: 1, maps_max: 1, input_racks: [1]}]\n", "no DataNode sits in those racks"},
		{head + "node_types: [{name: s, count: 2, memory_mb: 1024, vcores: 1}]\njobs: [{class: c, maps: 1, input_racks: [-1]}]\n", "jobs[0].input_racks: rack -1 is outside"},
	}
	for _, c := range cases {
		_, err := ParseScenario([]byte(c.yaml), "bad.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}
