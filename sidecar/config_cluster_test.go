package sidecar

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckAgainstCluster(t *testing.T) {
	inv := Inventory{Queues: []string{"root", "root.adhoc", "root.prod", "root.prod.etl", "root.sort"}, Labels: []string{"gpu"},
		Nodes: []InventoryNode{{Host: "worker-01", GPUs: 0}, {Host: "gpu-01", GPUs: 4}}}
	cases := []struct {
		name string
		yaml string
		want []string // substrings of each field of the error, in order; none: no error
	}{
		{"all exist", "queues: {root.adhoc: {pinned: true}, root.prod: {weight: 2}}\nnode_types: [{name: g, label: gpu, host_pattern: 'gpu-*', min_gpus: 4}]\n", nil},
		{"misspelled pinned queue", "queues: {root.adhocc: {pinned: true}}\n",
			[]string{"queues.root.adhocc: no such queue; did you mean root.adhoc?"}},
		{"nothing near", "queues: {root.marketing: {weight: 1}}\n",
			[]string{"queues.root.marketing: no such queue; queues are root, root.adhoc, root.prod, root.prod.etl, root.sort (mark it expected_later"}},
		{"expected later", "queues: {root.marketing: {weight: 1, expected_later: true}}\n", nil},
		{"label and hosts", "node_types: [{name: g, label: gpuu}, {name: w, host_pattern: 'wrker-*'}, {name: big, min_gpus: 8}]\n",
			[]string{`node_types[0] (g).label: no such node label "gpuu"; did you mean gpu?`,
				`node_types[1] (w).host_pattern: "wrker-*" matches no node; did you mean a pattern for worker-01?`,
				"node_types[2] (big).min_gpus: no node has 8 GPUs or more"}},
		{"hosts listed when none is near", "node_types: [{name: w, host_pattern: 'dn*.example.com'}]\n",
			[]string{`node_types[0] (w).host_pattern: "dn*.example.com" matches no node; hosts are gpu-01, worker-01`}},
		{"node type expected later", "node_types: [{name: g, label: fpga, expected_later: true}]\n", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ParseConfig([]byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			err = cfg.CheckAgainstCluster(inv)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || !ce.Cluster {
				t.Fatalf("error = %v, want a *ConfigError about the cluster", err)
			}
			if len(ce.Fields) != len(tc.want) {
				t.Fatalf("fields = %q, want %d", ce.Fields, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(ce.Fields[i], w) {
					t.Errorf("field %d = %q, want it to contain %q", i, ce.Fields[i], w)
				}
			}
		})
	}
	for _, tc := range []struct{ queue, want string }{
		{"root.nosuch", "--queue root.nosuch: no such queue; queues are root, root.adhoc,"},
		{"root.srt", "--queue root.srt: no such queue; did you mean root.sort?"},
		{"root.prod.etl", ""},
	} {
		err := CheckQueue("queue", tc.queue, inv)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckQueue(%s) = %v, want %q", tc.queue, err, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"adhoc", "adhocc", 1}, {"kitten", "sitting", 3}, {"gpu", "", 3}, {"über", "uber", 1}} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
