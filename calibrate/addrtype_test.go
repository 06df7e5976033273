package calibrate

import (
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// A task attempt's node HTTP address names its node type through the RM's
// nodes: by host:port, by host when the port differs, "" for no node.
func TestAddressTypeOf(t *testing.T) {
	nodes := []cluster.Node{
		{ID: "g1:45454", Host: "g1", HTTPAddress: "g1:8042", Partition: "gpu", Total: cluster.Resource{MemoryMB: 65536, VCores: 16, GPUs: 4}},
		{ID: "c1:45454", Host: "c1", HTTPAddress: "c1:8042", Total: cluster.Resource{MemoryMB: 65536, VCores: 16}},
	}
	typeOf := AddressTypeOf(nodes, Classifier{Rules: []NodeTypeRule{{Name: "gpu", Label: "gpu"}}}.Types(nodes))
	tests := []struct{ addr, want string }{
		{"g1:8042", "gpu"},
		{"http://G1:8042", "gpu"},
		{"c1:8042", "cpu:16c-64g"},
		{"c1:9999", "cpu:16c-64g"},
		{"x1:8042", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := typeOf(tt.addr); got != tt.want {
			t.Errorf("AddressTypeOf(%q) = %q, want %q", tt.addr, got, tt.want)
		}
	}
}
