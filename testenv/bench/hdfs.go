package main

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/hdfsns"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/namenode"
)

// The hdfs rows: the block map of one job with 100,000 blocks on 1,000
// DataNodes, fetched from the mini NameNode over loopback Hadoop IPC.
// Figure: the sidecar's way, located listings (getListing with
// needLocation, ~1,000 replicas a page, as FileInputFormat lists input).
// Baseline, same run and same namespace: what colinmarc/hdfs alone allows,
// ReadDir of each input directory then one getBlockLocations per file.
// Both sides include the in-process NameNode's own work and heap.
func init() {
	register(Bench{Area: "hdfs", Order: 30, Run: benchHDFS, Rows: 2})
}

func benchHDFS(o Options) ([]Row, error) {
	const nodes, dirs, blocksPerFile, repl = 1000, 10, 10, 3
	filesPerDir := 1000 // 10 × 1,000 × 10 = 100,000 blocks
	if o.Quick {
		filesPerDir = 100
	}
	const blockSize = 128 << 20
	fs := hdfsns.New()
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < nodes; n++ {
		fs.AddDatanode(hdfsns.Datanode{Host: fmt.Sprintf("dn%04d", n), Rack: fmt.Sprintf("/rack%02d", n/40)})
	}
	var inputs []string
	for d := 0; d < dirs; d++ {
		dir := fmt.Sprintf("/data/job/in%02d", d)
		inputs = append(inputs, dir)
		for f := 0; f < filesPerDir; f++ {
			reps := make([][]string, blocksPerFile)
			for b := range reps {
				perm := rng.Perm(nodes)[:repl]
				for _, n := range perm {
					reps[b] = append(reps[b], fmt.Sprintf("dn%04d", n))
				}
			}
			fs.AddFile(fmt.Sprintf("%s/part-%05d", dir, f), blocksPerFile*blockSize-blockSize/2, blockSize, reps)
		}
		fs.AddFile(dir+"/_SUCCESS", 0, blockSize, nil)
	}
	srv, err := namenode.Start(fs, namenode.Options{})
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	c, err := hdfs.NewClient(hdfs.Options{Addresses: []string{srv.Addr()}, User: "bench"})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ctx := context.Background()

	var located, perFile *hdfs.BlockMap
	figure, err := measure(func() error {
		var err error
		located, err = c.JobBlockMap(ctx, inputs)
		return err
	})
	if err != nil {
		return nil, err
	}
	listings := srv.Calls("getListing")
	base, err := measure(func() error {
		perFile = hdfs.NewBlockMap()
		for _, dir := range inputs {
			fis, err := c.ReadDir(dir)
			if err != nil {
				return err
			}
			for _, fi := range fis {
				if fi.IsDir() || fi.Name()[0] == '_' || fi.Name()[0] == '.' {
					continue
				}
				bs, err := c.FileBlocks(ctx, dir+"/"+fi.Name())
				if err != nil {
					return err
				}
				perFile.AddFile(bs)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The comparison only means something if both ways agree.
	if located.Blocks != perFile.Blocks || located.Bytes != perFile.Bytes || !reflect.DeepEqual(located.BytesByHost, perFile.BytesByHost) {
		return nil, fmt.Errorf("located map (%d blocks) and per-file map (%d blocks) differ", located.Blocks, perFile.Blocks)
	}
	calls := srv.Calls("getBlockLocations")
	what := fmt.Sprintf("job block map, %d blocks × %d replicas on %d nodes, loopback RPC", located.Blocks, repl, len(located.BytesByHost))
	return []Row{
		{Area: "hdfs", Name: what + ": wall",
			Figure:   fmt.Sprintf("%.0f ms (%d located listings)", ms(figure.Wall.Seconds()), listings),
			Baseline: fmt.Sprintf("%.0f ms (%d listings + %d getBlockLocations)", ms(base.Wall.Seconds()), srv.Calls("getListing")-listings, calls),
			Ratio:    fmt.Sprintf("%.1f× faster", base.Wall.Seconds()/figure.Wall.Seconds()),
			Goal:     "fewer round trips than per-file calls"},
		{Area: "hdfs", Name: what + ": peak heap (client + in-process NameNode)",
			Figure:   fmt.Sprintf("%.1f MiB", mib(figure.PeakHeap)),
			Baseline: fmt.Sprintf("%.1f MiB", mib(base.PeakHeap)),
			Ratio:    fmt.Sprintf("%.2f×", float64(figure.PeakHeap)/float64(max(base.PeakHeap, 1))),
			Goal:     "no more than per-file calls"},
	}, nil
}

func ms(s float64) float64 { return s * 1000 }
