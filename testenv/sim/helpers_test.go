package sim

import "github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"

func mustMutation() schedconf.Mutation {
	return schedconf.Mutation{UpdateQueue: []schedconf.QueueUpdate{
		{Queue: "root.crypto", Params: map[string]string{"accessible-node-labels.gpu.capacity": "100", "default-node-label-expression": "gpu"}},
		{Queue: "root.sort", Params: map[string]string{"accessible-node-labels.gpu.capacity": "0"}},
	}}
}
