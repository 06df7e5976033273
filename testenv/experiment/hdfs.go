package experiment

import (
	"fmt"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/namenode"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
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
