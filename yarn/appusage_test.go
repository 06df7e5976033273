package yarn

import (
	"reflect"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

func TestDecideAppsRead(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	base := appsReadInput{Have: true, LastRM: "rm1", RM: "rm1", FullAt: t0, Time: t0.Add(time.Minute), MaxAge: 5 * time.Minute}
	for _, tc := range []struct {
		name string
		mod  func(*appsReadInput)
		lean bool
		why  string
	}{
		{"kept and young", func(*appsReadInput) {}, true, appsLean},
		{"exactly the max age", func(in *appsReadInput) { in.Time = t0.Add(5 * time.Minute) }, true, appsLean},
		{"reuse off", func(in *appsReadInput) { in.MaxAge = -1 }, false, appsAlways},
		{"nothing kept", func(in *appsReadInput) { in.Have = false }, false, appsNone},
		{"failover", func(in *appsReadInput) { in.RM = "rm2" }, false, appsOtherRM},
		{"no queue use per partition", func(in *appsReadInput) { in.NoUsage = true }, false, appsNoQueues},
		{"clock went back", func(in *appsReadInput) { in.Time = t0.Add(-time.Second) }, false, appsClockBack},
		{"aged", func(in *appsReadInput) { in.Time = t0.Add(5*time.Minute + time.Second) }, false, appsAged},
		// Node types given: resourceInfo only matters where a partition
		// holds one type.
		{"every partition mixed, nothing kept", func(in *appsReadInput) { in.Types, in.Have = typesMixed, false }, true, appsMixed},
		{"every partition mixed, kept use aged", func(in *appsReadInput) {
			in.Types, in.Time = typesMixed, t0.Add(time.Hour)
		}, true, appsMixed},
		{"every partition mixed, failover", func(in *appsReadInput) { in.Types, in.RM = typesMixed, "rm2" }, true, appsMixed},
		{"every partition mixed, reuse off", func(in *appsReadInput) { in.Types, in.MaxAge = typesMixed, -1 }, false, appsAlways},
		{"every partition mixed, no queue use per partition", func(in *appsReadInput) { in.Types, in.NoUsage = typesMixed, true }, false, appsNoQueues},
		{"no listing yet, nothing kept", func(in *appsReadInput) { in.Types, in.Have = typesNoListing, false }, false, appsNone},
		{"no listing yet, kept and young", func(in *appsReadInput) { in.Types = typesNoListing }, true, appsLean},
		{"a single-type partition, nothing kept", func(in *appsReadInput) { in.Types, in.Have = typesSingle, false }, false, appsNone},
		{"a single-type partition, aged", func(in *appsReadInput) {
			in.Types, in.Time = typesSingle, t0.Add(time.Hour)
		}, false, appsAged},
		{"a single-type partition, kept and young", func(in *appsReadInput) { in.Types = typesSingle }, true, appsLean},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := base
			tc.mod(&in)
			lean, why := decideAppsRead(in)
			if lean != tc.lean || why != tc.why {
				t.Fatalf("decideAppsRead = %v %q, want %v %q", lean, why, tc.lean, tc.why)
			}
		})
	}
}

func TestFillUsage(t *testing.T) {
	mb := func(m int64) cluster.Resource { return cluster.Resource{MemoryMB: m, VCores: m / 1024} }
	// am is the partition of the app's AM container ("-": none).
	use := func(parts map[string]int64, am string) map[string]cluster.AppPartitionUsage {
		out := map[string]cluster.AppPartitionUsage{}
		for p, m := range parts {
			u := cluster.AppPartitionUsage{Used: mb(m)}
			if p == am {
				u.AMUsed = mb(1024)
			}
			out[p] = u
		}
		return out
	}
	leaf := func(path string, used map[string]int64) cluster.Queue {
		q := cluster.Queue{Path: path, Leaf: true, ByPartition: map[string]cluster.QueueCapacity{}}
		for p, m := range used {
			q.ByPartition[p] = cluster.QueueCapacity{Used: mb(m)}
		}
		return q
	}
	app := func(id, queue string, mem int64, containers int, am string) cluster.App {
		return cluster.App{ID: id, Queue: queue, Allocated: mb(mem), RunningContainers: containers, AMContainerID: am}
	}
	kept := map[string]usageEntry{
		"a": {containers: 3, allocated: mb(6144), amContainer: "am-a", usage: use(map[string]int64{"": 4096, "gpu": 2048}, "gpu")},
		"b": {containers: 2, allocated: mb(4096), amContainer: "am-b", usage: use(map[string]int64{"": 4096}, "")},
		"c": {containers: 1, allocated: mb(2048), amContainer: "am-c", usage: use(map[string]int64{"": 2048}, "")},
	}
	for _, tc := range []struct {
		name          string
		apps          []cluster.App
		queues        []cluster.Queue
		want          map[string]map[string]cluster.AppPartitionUsage
		estimated     map[string]bool
		nKept, nEstim int
	}{
		{
			name:   "unchanged apps keep their read use",
			apps:   []cluster.App{app("a", "root.q", 6144, 3, "am-a"), app("b", "root.q", 4096, 2, "am-b")},
			queues: []cluster.Queue{leaf("root.q", map[string]int64{"": 8192, "gpu": 2048})},
			want:   map[string]map[string]cluster.AppPartitionUsage{"a": kept["a"].usage, "b": kept["b"].usage},
			nKept:  2,
		},
		{
			// The queue uses 12 GiB in the default partition and 6 in gpu;
			// a (kept) holds 4 + 2, so b and d (changed, new) share 8 + 4:
			// each its allocation split 2:1.
			name:   "changed and new apps split by their queue's use beyond the kept",
			apps:   []cluster.App{app("a", "root.q", 6144, 3, "am-a"), app("b", "root.q", 6144, 3, "am-b"), app("d", "root.q", 6144, 3, "am-d")},
			queues: []cluster.Queue{leaf("root.q", map[string]int64{"": 12288, "gpu": 6144})},
			want: map[string]map[string]cluster.AppPartitionUsage{"a": kept["a"].usage,
				"b": use(map[string]int64{"": 4096, "gpu": 2048}, ""), "d": use(map[string]int64{"": 4096, "gpu": 2048}, "-")},
			estimated: map[string]bool{"b": true, "d": true},
			nKept:     1, nEstim: 2,
		},
		{
			// Beyond the kept a, the queue uses the default partition only:
			// the changed b is all there, derived, not estimated; its AM
			// container is the one read, so its amUsed is kept.
			name:   "one partition left: derived, AM use kept",
			apps:   []cluster.App{app("a", "root.q", 6144, 3, "am-a"), app("b", "root.q", 8192, 4, "am-b")},
			queues: []cluster.Queue{leaf("root.q", map[string]int64{"": 12288, "gpu": 2048})},
			want:   map[string]map[string]cluster.AppPartitionUsage{"a": kept["a"].usage, "b": {"": {Used: mb(8192), AMUsed: mb(1024)}}},
			nKept:  1,
		},
		{
			name:      "a new AM container: its AM use is not kept",
			apps:      []cluster.App{app("c", "root.r", 3072, 2, "am-c2")},
			queues:    []cluster.Queue{leaf("root.r", map[string]int64{"": 2048, "gpu": 1024})},
			want:      map[string]map[string]cluster.AppPartitionUsage{"c": use(map[string]int64{"": 2048, "gpu": 1024}, "-")},
			estimated: map[string]bool{"c": true},
			nEstim:    1,
		},
		{
			name:      "a queue the scheduler answer does not know: the default partition, estimated",
			apps:      []cluster.App{app("e", "root.gone", 2048, 1, "am-e")},
			want:      map[string]map[string]cluster.AppPartitionUsage{"e": {"": {Used: mb(2048)}}},
			estimated: map[string]bool{"e": true},
			nEstim:    1,
		},
		{
			name:   "apps read with resourceInfo stay as read",
			apps:   []cluster.App{{ID: "f", Queue: "root.q", UsageByPartition: use(map[string]int64{"gpu": 1024}, "gpu")}},
			queues: []cluster.Queue{leaf("root.q", map[string]int64{"gpu": 1024})},
			want:   map[string]map[string]cluster.AppPartitionUsage{"f": use(map[string]int64{"gpu": 1024}, "gpu")},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			apps := append([]cluster.App(nil), tc.apps...)
			nKept, nEstim := fillUsage(apps, kept, tc.queues)
			if nKept != tc.nKept || nEstim != tc.nEstim {
				t.Errorf("kept %d, estimated %d; want %d, %d", nKept, nEstim, tc.nKept, tc.nEstim)
			}
			for _, a := range apps {
				if !reflect.DeepEqual(a.UsageByPartition, tc.want[a.ID]) {
					t.Errorf("app %s use %+v, want %+v", a.ID, a.UsageByPartition, tc.want[a.ID])
				}
				if a.UsageEstimated != tc.estimated[a.ID] {
					t.Errorf("app %s estimated %v, want %v", a.ID, a.UsageEstimated, tc.estimated[a.ID])
				}
			}
		})
	}
}

// The split sums to the whole in every dimension.
func TestSplitResource(t *testing.T) {
	for _, tc := range []struct {
		r cluster.Resource
		w map[string]int64
	}{
		{cluster.Resource{MemoryMB: 10240, VCores: 7, GPUs: 1}, map[string]int64{"": 2, "gpu": 1}},
		{cluster.Resource{MemoryMB: 1, VCores: 1}, map[string]int64{"": 1, "a": 1, "b": 1}},
		{cluster.Resource{}, map[string]int64{"": 1}},
	} {
		got := splitResource(tc.r, tc.w)
		var sum cluster.Resource
		for _, u := range got {
			sum = sum.Add(u.Used)
		}
		if sum != tc.r || len(got) != len(tc.w) {
			t.Errorf("splitResource(%+v, %v) = %+v: sums to %+v", tc.r, tc.w, got, sum)
		}
	}
}
