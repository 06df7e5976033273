package sidecar

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// The example config's commented node_types block is a config that parses
// and types nodes as its comments say (an admin copies it).
func TestExampleNodeTypesBlock(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "configs", "sidecar.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var block []string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "#   node_types:"):
			in = true
		case in && !strings.HasPrefix(l, "#  "):
			in = false
		}
		if in {
			block = append(block, strings.TrimPrefix(l, "#  "))
		}
	}
	if len(block) < 3 {
		t.Fatalf("no commented node_types example in the example config: %q", block)
	}
	cfg, err := ParseConfig([]byte(strings.Join(block, "\n")))
	if err != nil {
		t.Fatalf("the example's node_types:\n%s\n%v", strings.Join(block, "\n"), err)
	}
	var c calibrate.Classifier
	for _, r := range cfg.NodeTypes {
		c.Rules = append(c.Rules, calibrate.NodeTypeRule{Name: r.Name, Label: r.Label, HostPattern: r.HostPattern, MinGPUs: r.MinGPUs})
	}
	for _, tc := range []struct {
		node cluster.Node
		want string
	}{
		{cluster.Node{Host: "worker-23", Partition: "gpu", Total: cluster.Resource{GPUs: 4}}, "gpu"},
		{cluster.Node{Host: "worker-40", Total: cluster.Resource{GPUs: 1}}, "gpu-unlabelled"},
		{cluster.Node{Host: "worker-23"}, "cpu-new"},
		{cluster.Node{Host: "worker-05"}, "cpu-old"},
		{cluster.Node{Host: "worker-200"}, "cpu-old"},
	} {
		if got := c.TypeOf(tc.node); got != tc.want {
			t.Errorf("%+v: type %q, want %q", tc.node, got, tc.want)
		}
	}
}
