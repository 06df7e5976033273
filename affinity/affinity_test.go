package affinity

import (
	"math"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs"
)

// Lee §4.2/§4.3.1.2: a class 2× faster on compute-only GPU nodes is worth
// less than 2× there once its remote reads are counted, and the more
// I/O-bound the class, the less.
func TestEffectiveRatesCountReadCost(t *testing.T) {
	bw := Bandwidth{NodeLocal: 128, RackLocal: 64, OffSwitch: 32}
	loc := map[string]Locality{"cpu": {NodeLocal: 1}, "gpu": {NodeLocal: 0, RackLocal: 0}}
	cases := []struct {
		name       string
		refSeconds float64
		want       float64 // effective gpu ratio
	}{
		// cpu: 60 + 128/128 = 61 s; gpu: 30 + 128/32 = 34 s.
		{"cpu-heavy map", 60, 61.0 / 34.0},
		// cpu: 4 + 1 = 5 s; gpu: 2 + 4 = 6 s: slower on the GPU node.
		{"I/O-bound map", 4, 5.0 / 6.0},
	}
	for _, c := range cases {
		got := EffectiveRates(c.refSeconds, 128, map[string]float64{"cpu": 1, "gpu": 2}, loc, "cpu", bw)
		if math.Abs(got["gpu"]-c.want) > 1e-9 || math.Abs(got["cpu"]-1) > 1e-9 {
			t.Errorf("%s: effective rates %v, want gpu %.4f", c.name, got, c.want)
		}
	}
}

func TestTaskSecondsLocalitySteps(t *testing.T) {
	bw := Bandwidth{NodeLocal: 100, RackLocal: 50, OffSwitch: 25}
	for _, c := range []struct {
		loc  Locality
		want float64
	}{
		{Locality{NodeLocal: 1}, 10 + 1},
		{Locality{RackLocal: 1}, 10 + 2},
		{Locality{}, 10 + 4},
		{Locality{NodeLocal: 0.5, RackLocal: 0.5}, 10 + 0.5 + 1},
	} {
		if got := TaskSeconds(10, 1, 100, c.loc, bw); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("TaskSeconds(%+v) = %v, want %v", c.loc, got, c.want)
		}
	}
	if err := (Bandwidth{NodeLocal: 1, RackLocal: 0, OffSwitch: 1}).Validate(); err == nil {
		t.Error("a zero bandwidth passed validation")
	}
}

// The compute-only partition of a block map holds none of the input.
func TestPartitionLocalityAndQueueShares(t *testing.T) {
	m := hdfs.NewBlockMap()
	m.AddFile([]hdfs.Block{
		{Length: 100, Hosts: []string{"dn1", "dn2"}, Racks: []string{"/r1", "/r1"}},
		{Length: 100, Hosts: []string{"dn2", "dn3"}, Racks: []string{"/r1", "/r2"}},
	})
	hosts := map[string]string{"dn1": "", "dn2": "", "dn3": "", "gpu1": "gpu"}
	loc := PartitionLocality(m, hosts, map[string]bool{"gpu": true})
	if loc[""].NodeLocal != 1 || loc["gpu"].NodeLocal != 0 || loc["gpu"].RackLocal != 1 {
		t.Fatalf("locality %+v", loc)
	}
	qs := QueueShares(map[string]*hdfs.BlockMap{"app1": m}, map[string]string{"app1": "root.etl"}, hosts)
	if len(qs) != 1 || qs[0].Queue != "root.etl" || qs[0].Local[""] != 1 || qs[0].Local["gpu"] != 0 || qs[0].Bytes != 200 {
		t.Fatalf("queue shares %+v", qs)
	}
}
