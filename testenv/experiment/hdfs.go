package experiment

import (
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/affinity"
	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/hdfs"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/learn"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/namenode"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// miniHDFS is the scenario's HDFS served the real way: the mini NameNode
// over the blocks the simulated scheduler places maps by, read by the
// sidecar's own hdfs client.
type miniHDFS struct {
	nn     *namenode.Server
	client *hdfs.Client
	maps   *sidecar.BlockMaps
	last   int
}

func startMiniHDFS(c *sim.Cluster, y *yarn.Client, cfg sidecar.HDFSConfig, log hclog.Logger) (*miniHDFS, error) {
	nn, err := namenode.Start(c.HDFS(), namenode.Options{})
	if err != nil {
		return nil, fmt.Errorf("start the mini NameNode: %w", err)
	}
	hc, err := hdfs.NewClient(hdfs.Options{Addresses: []string{nn.Addr()}, User: "yarn-sidecar", Recursive: cfg.Recursive})
	if err != nil {
		nn.Close()
		return nil, err
	}
	return &miniHDFS{nn: nn, client: hc, maps: &sidecar.BlockMaps{Reader: hc, Conf: y, MaxCallsPerCycle: cfg.MaxCallsPerCycle, Log: log}}, nil
}

// wireReadCost lets the decision and the label layout count reads: the
// effective-rate step and LabelLayouter.Locality from the block maps.
func wireReadCost(loop *sidecar.Loop, maps *sidecar.BlockMaps, learner *learn.HistoryLearner, cl calibrate.Classifier, key calibrate.ClassKey) {
	if d, ok := loop.Decider.(*sidecar.PSDecider); ok {
		d.ReadCost = func() *sidecar.ReadCost {
			return &sidecar.ReadCost{Inputs: maps.Last(), Processing: learner.Processing(), Bandwidth: learner.Bandwidths()}
		}
	}
	if loop.Labels != nil {
		loop.Labels.Locality = func(snap cluster.Snapshot) map[string]map[string]affinity.Locality {
			return sidecar.ClassLocality(snap, cl.Types(snap.Nodes), key.ClassOf, maps.Last())
		}
	}
}

// calls is every call the NameNode answered, whatever the method.
func (m *miniHDFS) calls() int {
	n := 0
	for _, meth := range []string{"getFileInfo", "getListing", "getBlockLocations", "getContentSummary", "getServerDefaults", "getFsStats", "renewLease"} {
		n += m.nn.Calls(meth)
	}
	return n
}

func (m *miniHDFS) callsSinceLast() int {
	n := m.calls()
	d := n - m.last
	m.last = n
	return d
}

func (m *miniHDFS) close() {
	m.client.Close()
	m.nn.Close()
}
