package hdfs_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs"
)

func TestBlockMapByPartition(t *testing.T) {
	m := hdfs.NewBlockMap()
	m.AddFile([]hdfs.Block{
		{Length: 100, Hosts: []string{"a1", "a2", "g1"}, Racks: []string{"/r1", "/r1", "/r2"}},
		{Length: 50, Hosts: []string{"a1", "a1"}}, // a host listed twice counts once
	})
	m.AddFile([]hdfs.Block{{Length: 30, Hosts: []string{"s1"}}}) // storage-only DataNode
	m.AddFile([]hdfs.Block{{Length: 7}})                         // no location at all
	m.AddFile(nil)                                               // empty file

	parts := map[string]string{"a1": "", "a2": "", "g1": "gpu", "c1": "cpu"}
	cases := []struct {
		name string
		got  any
		want any
	}{
		{"files", m.Files, 4},
		{"blocks", m.Blocks, 4},
		{"bytes", m.Bytes, int64(187)},
		{"unplaced", m.Unplaced, int64(7)},
		{"bytes by host", m.BytesByHost, map[string]int64{"a1": 150, "a2": 100, "g1": 100, "s1": 30}},
		{"blocks by host", m.BlocksByHost, map[string]int{"a1": 2, "a2": 1, "g1": 1, "s1": 1}},
		{"racks", m.RackOf, map[string]string{"a1": "/r1", "a2": "/r1", "g1": "/r2"}},
		// default: both blocks of file 1 have a replica on a1/a2 -> 150, once each.
		// gpu: only the first block. cpu: a partition without DataNodes.
		{"by partition", m.ByPartition(parts), map[string]int64{"": 150, "gpu": 100, "cpu": 0}},
		{"hosts", m.Hosts(), []string{"a1", "a2", "g1", "s1"}},
		// The lookup form asks only the block map's hosts: partitions
		// without a replica (cpu) are not there to be named.
		{"by partition of a lookup", m.ByPartitionOf(func(h string) (string, bool) { p, ok := parts[h]; return p, ok }),
			map[string]int64{"": 150, "gpu": 100}},
		{"near the first rack", m.ByPartitionOf(func(h string) (string, bool) { return "near", m.RackOf[h] == "/r1" }),
			map[string]int64{"near": 150}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Errorf("got %v, want %v", tc.got, tc.want)
			}
		})
	}
	t.Run("local fractions", func(t *testing.T) {
		f := m.LocalFractions(parts)
		want := map[string]float64{"": 150.0 / 187, "gpu": 100.0 / 187, "cpu": 0}
		for p, w := range want {
			if math.Abs(f[p]-w) > 1e-12 {
				t.Errorf("fraction[%q] = %v, want %v", p, f[p], w)
			}
		}
	})
	t.Run("empty map", func(t *testing.T) {
		f := hdfs.NewBlockMap().LocalFractions(parts)
		if f["gpu"] != 0 || len(f) != 3 {
			t.Errorf("fractions of an empty input = %v", f)
		}
	})
}

func TestSplitInputDirs(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"one", "/a", []string{"/a"}},
		{"several", "/a,hdfs://nn:8020/b, /c", []string{"/a", "hdfs://nn:8020/b", "/c"}},
		{"escaped comma", `/a\,b,/c`, []string{"/a,b", "/c"}},
		{"empty parts dropped", ",/a,,", []string{"/a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := hdfs.SplitInputDirs(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("SplitInputDirs(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
