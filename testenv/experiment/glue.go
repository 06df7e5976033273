package experiment

import (
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

type clusterSnapshot = cluster.Snapshot

type clusterResource = cluster.Resource
