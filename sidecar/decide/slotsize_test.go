package decide

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

func sizedJob(id, class string, mapMB, vcores int64, containers, waiting int) cluster.App {
	return cluster.App{ID: id, Name: class, State: cluster.AppRunning, RunningContainers: containers,
		Job: &cluster.Job{ContainerSize: cluster.Resource{MemoryMB: mapMB, VCores: vcores}, MapsTotal: waiting}}
}

func TestSlotSizer(t *testing.T) {
	r := func(mb, vc int64) cluster.Resource { return cluster.Resource{MemoryMB: mb, VCores: vc} }
	// A job whose conf was not read: its allocations less the AM's.
	measured := cluster.App{ID: "m", Name: "scan", State: cluster.AppRunning, RunningContainers: 5, AMNodeID: "n1",
		Allocated:        r(1536+4*1024, 5),
		UsageByPartition: map[string]cluster.AppPartitionUsage{"": {AMUsed: r(1536, 1)}}}
	cases := []struct {
		name     string
		override cluster.Resource
		minimum  cluster.Resource
		apps     []cluster.App
		want     cluster.Resource
		source   string
	}{
		{"512 MB maps (the recorded 3.3.6 cluster)", cluster.Resource{}, cluster.Resource{}, []cluster.App{sizedJob("a", "sort", 512, 1, 9, 4)}, r(512, 1), SlotFromRunning},
		{"most containers win: 8 of 512 MB against 2 of 4096", cluster.Resource{}, cluster.Resource{},
			[]cluster.App{sizedJob("a", "sort", 512, 1, 9, 0), sizedJob("b", "big", 4096, 1, 3, 0)}, r(512, 1), SlotFromRunning},
		{"waiting maps count as the job's demand", cluster.Resource{}, cluster.Resource{},
			[]cluster.App{sizedJob("a", "sort", 512, 1, 2, 0), sizedJob("b", "big", 4096, 1, 2, 40)}, r(4096, 1), SlotFromRunning},
		{"rounded up to the scheduler minimum, as the RM does", cluster.Resource{}, r(1024, 1),
			[]cluster.App{sizedJob("a", "sort", 1536, 1, 3, 0)}, r(2048, 1), SlotFromRunning},
		{"measured from allocations when the conf is unknown", cluster.Resource{}, cluster.Resource{}, []cluster.App{measured}, r(1024, 1), SlotFromRunning},
		{"the admin's override wins", r(3072, 2), cluster.Resource{}, []cluster.App{sizedJob("a", "sort", 512, 1, 9, 0)}, r(3072, 2), SlotFromConfig},
		{"nothing running: the scheduler minimum", cluster.Resource{}, r(256, 1), nil, r(256, 1), SlotFromMinimum},
		{"nothing known at all: the default", cluster.Resource{}, cluster.Resource{}, nil, DefaultSlot, SlotFromFallback},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			z := &SlotSizer{Override: c.override, Minimum: c.minimum, ClassOf: func(a cluster.App) string { return a.Name }}
			got := z.Choose(cluster.Snapshot{Apps: c.apps})
			if got.Slot != c.want || got.Source != c.source {
				t.Fatalf("slot %+v from %s, want %+v from %s", got.Slot, got.Source, c.want, c.source)
			}
		})
	}
	// With no job running, the classes' last sizes stand.
	z := &SlotSizer{ClassOf: func(a cluster.App) string { return a.Name }}
	z.Choose(cluster.Snapshot{Apps: []cluster.App{sizedJob("a", "sort", 512, 1, 9, 0)}})
	if got := z.Choose(cluster.Snapshot{}); got.Slot != r(512, 1) || got.Source != SlotFromSeen || got.ByClass["sort"] != r(512, 1) {
		t.Fatalf("after the job ended: %+v, want the class's 512 MB remembered", got)
	}
}

// Reduces, running and to come, count in their own size: a job of 2
// maps left and 8 reduces of 4096 MB plans in 4096 MB slots.
func TestSlotSizerCountsReduces(t *testing.T) {
	j := sizedJob("a", "sort", 1024, 1, 3, 2)
	j.Job.ReduceContainerSize = cluster.Resource{MemoryMB: 4096, VCores: 1}
	j.Job.ReducesTotal, j.Job.ReducesRunning = 8, 2
	z := &SlotSizer{}
	if got := z.Choose(cluster.Snapshot{Apps: []cluster.App{j}}); got.Slot.MemoryMB != 4096 {
		t.Fatalf("slot %+v, want the reduces' 4096 MB (8 reduces against 2 maps)", got.Slot)
	}
	j.Job.ReducesTotal, j.Job.ReducesRunning = 1, 0
	if got := z.Choose(cluster.Snapshot{Apps: []cluster.App{j}}); got.Slot.MemoryMB != 1024 {
		t.Fatalf("slot %+v, want the maps' 1024 MB (4 maps against 1 reduce)", got.Slot)
	}
}

// The queues' reported minimum allocation is the fallback when yarn-site
// says none, and rounds requests up.
func TestSlotSizerSnapshotMinimum(t *testing.T) {
	min := cluster.Resource{MemoryMB: 256, VCores: 1}
	snap := cluster.Snapshot{Queues: []cluster.Queue{{Path: "root.a", MinimumAllocation: &min}}}
	z := &SlotSizer{}
	if got := z.Choose(snap); got.Slot != min || got.Source != SlotFromMinimum {
		t.Fatalf("no job: %+v, want the reported 256 MB minimum", got)
	}
	snap.Apps = []cluster.App{sizedJob("a", "sort", 300, 1, 3, 0)}
	if got := z.Choose(snap); got.Slot.MemoryMB != 512 {
		t.Fatalf("300 MB maps: slot %+v, want 512 MB (rounded up to the 256 MB minimum)", got.Slot)
	}
}
