package main

import (
	"fmt"
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/affinity"
	"github.com/yarn-sidecar/yarn-sidecar/hdfs"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// hdfsOptions are the NameNode addresses from the config, else from
// HADOOP_CONF_DIR's core-site.xml and hdfs-site.xml (HA nameservices
// included).
func hdfsOptions(cfg *sidecar.Config) (hdfs.Options, error) {
	if len(cfg.HDFS.NameNodes) > 0 {
		return hdfs.Options{Addresses: cfg.HDFS.NameNodes, User: cfg.HDFS.User, Recursive: cfg.HDFS.Recursive}, nil
	}
	dir := cfg.HadoopConfDir
	if dir == "" {
		dir = os.Getenv("HADOOP_CONF_DIR")
	}
	if dir == "" {
		return hdfs.Options{}, fmt.Errorf("hdfs.enabled: no NameNode address: set hdfs.namenodes in the config or HADOOP_CONF_DIR")
	}
	o, err := hdfs.LoadOptions(dir)
	if err != nil {
		return hdfs.Options{}, err
	}
	o.User, o.Recursive = cfg.HDFS.User, cfg.HDFS.Recursive
	if o.User == "" {
		o.User = os.Getenv("HADOOP_USER_NAME")
	}
	return o, nil
}

// wireHDFS connects the block-map step when hdfs.enabled: the loop reads
// running jobs' block maps, the learner places finished attempts with
// them, and the decision and label layout count reads.
func wireHDFS(cfg *sidecar.Config, d *deps, log hclog.Logger) error {
	if !cfg.HDFS.Enabled {
		return nil
	}
	opts, err := hdfsOptions(cfg)
	if err != nil {
		return err
	}
	client, err := hdfs.NewClient(opts)
	if err != nil {
		return err
	}
	d.hdfs = client
	maps := &sidecar.BlockMaps{Reader: client, Conf: d.Client, MaxCallsPerCycle: cfg.HDFS.MaxCallsPerCycle, Log: log.Named("hdfs")}
	d.BlockMaps = maps
	d.Learner.Locality = maps.AttemptLocality
	if pd, ok := d.Decider.(*sidecar.PSDecider); ok {
		pd.ReadCost = func() *sidecar.ReadCost {
			return &sidecar.ReadCost{Inputs: maps.Last(), Processing: d.Learner.Processing(), Bandwidth: d.Learner.Bandwidths()}
		}
	}
	l := d.Layouter
	l.Locality = func(snap cluster.Snapshot) map[string]map[string]affinity.Locality {
		return sidecar.ClassLocality(snap, l.Classifier.Types(snap.Nodes), l.ClassKey.ClassOf, maps.Last())
	}
	log.Info("reading HDFS block maps", "namenodes", opts.Addresses, "max_calls_per_cycle", cfg.HDFS.MaxCallsPerCycle) // defaulted in the config: the value in force
	return nil
}
