package experiment

import (
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

type clusterSnapshot = cluster.Snapshot

func sidecarSlot() cluster.Resource { return cluster.Resource{MemoryMB: 2048, VCores: 1} }

type clusterResource = cluster.Resource
