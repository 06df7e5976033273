package hdfs

import "sort"

// BlockMap is where a job's input lives: totals, and bytes per DataNode host.
// Build one with JobBlockMap, or with NewBlockMap and AddFile.
type BlockMap struct {
	Files  int   // input files (hidden files skipped), including empty ones
	Blocks int   // blocks of those files
	Bytes  int64 // input bytes (each block counted once)
	// BytesByHost is, per DataNode host, the input bytes with a replica there.
	BytesByHost map[string]int64
	// BlocksByHost is, per DataNode host, the blocks with a replica there.
	BlocksByHost map[string]int
	// RackOf is each host's network location as the NameNode reports it.
	RackOf map[string]string
	// Unplaced is bytes of blocks the NameNode gave no location for
	// (missing or all-corrupt blocks): every task reading them will fail or
	// wait, whatever the partition.
	Unplaced int64
	// SkippedDirs counts subdirectories of input directories left out
	// because Options.Recursive is off.
	SkippedDirs int

	hostIdx map[string]int32
	hosts   []string
	blocks  []placed
}

// placed is one block: its length and the hosts (indices) holding it.
type placed struct {
	length int64
	hosts  []int32
}

// NewBlockMap returns an empty map.
func NewBlockMap() *BlockMap {
	return &BlockMap{
		BytesByHost:  map[string]int64{},
		BlocksByHost: map[string]int{},
		RackOf:       map[string]string{},
		hostIdx:      map[string]int32{},
	}
}

// AddFile adds one input file and its blocks.
func (m *BlockMap) AddFile(blocks []Block) {
	m.Files++
	for _, b := range blocks {
		m.addBlock(b)
	}
}

func (m *BlockMap) addBlock(b Block) {
	m.Blocks++
	m.Bytes += b.Length
	if len(b.Hosts) == 0 {
		m.Unplaced += b.Length
	}
	p := placed{length: b.Length, hosts: make([]int32, 0, len(b.Hosts))}
	for i, h := range b.Hosts {
		idx, ok := m.hostIdx[h]
		if !ok {
			idx = int32(len(m.hosts))
			m.hosts = append(m.hosts, h)
			m.hostIdx[h] = idx
		}
		if containsIdx(p.hosts, idx) {
			continue // a host listed twice still holds the bytes once
		}
		p.hosts = append(p.hosts, idx)
		m.BytesByHost[h] += b.Length
		m.BlocksByHost[h]++
		if i < len(b.Racks) && b.Racks[i] != "" {
			m.RackOf[h] = b.Racks[i]
		}
	}
	m.blocks = append(m.blocks, p)
}

func containsIdx(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Hosts returns the DataNode hosts holding any input, by name.
func (m *BlockMap) Hosts() []string {
	out := append([]string(nil), m.hosts...)
	sort.Strings(out)
	return out
}

// ByPartition returns, per node-label partition, the input bytes with at
// least one replica on a host of that partition: the bytes a task placed in
// the partition can read node-locally if it lands on the right node. A block
// counts once per partition, and in every partition holding one of its
// replicas. hostToPartition maps NodeManager hosts to their partition (""
// for the default partition); DataNode hosts missing from it run no
// NodeManager and count for no partition.
func (m *BlockMap) ByPartition(hostToPartition map[string]string) map[string]int64 {
	out := m.ByPartitionOf(func(h string) (string, bool) {
		p, ok := hostToPartition[h]
		return p, ok
	})
	// Partitions with NodeManagers but no replica are worth saying: zero
	// local bytes is the accelerator-partition case of Lee §4.2.
	for _, p := range hostToPartition {
		if _, ok := out[p]; !ok {
			out[p] = 0
		}
	}
	return out
}

// ByPartitionOf is ByPartition with each host's partition given by a
// lookup (ok false: no NodeManager there) and only the partitions holding
// a replica: it visits the block map's hosts, not every host of the
// cluster, so a caller asking per job need not build a map of every node
// per job (issue 19: jobs × nodes).
func (m *BlockMap) ByPartitionOf(partOf func(host string) (string, bool)) map[string]int64 {
	out := map[string]int64{}
	part := make([]int32, len(m.hosts)) // host index -> partition index, -1 none
	var names []string
	pidx := map[string]int32{}
	for i, h := range m.hosts {
		p, ok := partOf(h)
		if !ok {
			part[i] = -1
			continue
		}
		j, ok := pidx[p]
		if !ok {
			j = int32(len(names))
			names = append(names, p)
			pidx[p] = j
		}
		part[i] = j
	}
	sums := make([]int64, len(names))
	var seen []int32
	for _, b := range m.blocks {
		seen = seen[:0]
		for _, h := range b.hosts {
			p := part[h]
			if p < 0 || containsIdx(seen, p) {
				continue
			}
			seen = append(seen, p)
			sums[p] += b.length
		}
	}
	for i, n := range names {
		out[n] = sums[i]
	}
	return out
}

// LocalFractions returns, per partition, ByPartition's bytes as a share of
// all input bytes: 1 when every block has a replica in the partition, 0 for
// a partition without DataNodes. An empty input gives 0 everywhere.
func (m *BlockMap) LocalFractions(hostToPartition map[string]string) map[string]float64 {
	by := m.ByPartition(hostToPartition)
	out := make(map[string]float64, len(by))
	for p, b := range by {
		if m.Bytes > 0 {
			out[p] = float64(b) / float64(m.Bytes)
		} else {
			out[p] = 0
		}
	}
	return out
}
