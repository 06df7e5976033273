package sidecar

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/hdfs"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// HDFSConfig is the config file's hdfs section: where the NameNodes are and
// how hard the loop may use them.
type HDFSConfig struct {
	// Enabled turns block-map reading on in the daemon (default off: a
	// cluster without HDFS, or whose NameNode the sidecar may not reach).
	Enabled bool `yaml:"enabled"`
	// NameNodes are RPC host:port addresses, all NameNodes of an HA
	// nameservice; empty means fs.defaultFS of hadoop_conf_dir
	// (hdfs.LoadOptions, HA included).
	NameNodes []string `yaml:"namenodes"`
	// User for simple auth (default the sidecar's user).
	User string `yaml:"user"`
	// MaxCallsPerCycle bounds the NameNode calls one control cycle makes
	// (default 200): jobs beyond it are read in later cycles, so a cluster
	// with 10,000 running jobs is never hammered.
	MaxCallsPerCycle int `yaml:"max_calls_per_cycle"`
	// Recursive expands input directories below one level
	// (mapreduce.input.fileinputformat.input.dir.recursive).
	Recursive bool `yaml:"recursive"`
}

// DefaultMaxNameNodeCalls is HDFSConfig.MaxCallsPerCycle's default.
const DefaultMaxNameNodeCalls = 200

// BlockMapReader reads a job's block map: *hdfs.Client.
type BlockMapReader interface {
	JobBlockMap(ctx context.Context, inputPaths []string) (*hdfs.BlockMap, error)
	// Calls is the NameNode calls made so far (a running counter).
	Calls() int64
}

// InputDirSource reads a job's mapreduce.input.fileinputformat.inputdir
// from its AM (or JobHistory) conf: *yarn.Client.
type InputDirSource interface {
	JobInputDir(ctx context.Context, app cluster.App, jobID string) (string, error)
}

// JobInput is one job's input as the NameNode reported it, or why it could
// not be read. A job whose input could not be read has Err set and no
// shares: it is reported, never guessed.
type JobInput struct {
	AppID string   `json:"appId"`
	JobID string   `json:"jobId"`
	Queue string   `json:"queue"`
	Paths []string `json:"paths"`
	Bytes int64    `json:"bytes"`
	// ByPartition is the share of the input with a replica on a node of
	// each partition; ByRack the share with a replica in each rack.
	ByPartition map[string]float64 `json:"byPartition,omitempty"`
	ByRack      map[string]float64 `json:"byRack,omitempty"`
	ReadAt      time.Time          `json:"readAt"`
	Err         string             `json:"error,omitempty"`

	m *hdfs.BlockMap
}

// Map is the block map itself (nil when unread).
func (j JobInput) Map() *hdfs.BlockMap { return j.m }

// InputsReport is what the block-map step saw in one cycle.
type InputsReport struct {
	// Jobs holds, per running MapReduce app id, its input.
	Jobs map[string]JobInput `json:"jobs"`
	// Calls is the NameNode calls this cycle made; Read the jobs it read.
	Calls int `json:"nameNodeCalls"`
	Read  int `json:"read"`
	// Deferred counts running jobs left for a later cycle by the budget.
	Deferred int `json:"deferred"`
	// NoInput counts running MapReduce jobs whose input paths are unknown
	// (AM conf unreadable, or not a FileInputFormat job).
	NoInput int `json:"noInput"`
}

// Failed lists the jobs whose input could not be read, by app id.
func (r *InputsReport) Failed() []JobInput {
	var out []JobInput
	for _, j := range r.Jobs {
		if j.Err != "" {
			out = append(out, j)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].AppID < out[b].AppID })
	return out
}

// BlockMaps is the loop's HDFS step: for each running MapReduce job it
// reads the job's block map once (inputs do not change while it runs) and
// caches it by job id, spending at most MaxCallsPerCycle NameNode calls a
// cycle. Entries outlive their job by Retain, so the learner can place the
// finished job's attempts (node-local, rack-local, off-switch).
type BlockMaps struct {
	Reader BlockMapReader
	// Conf, when set, reads the input paths of jobs whose snapshot lacks
	// them (once per job, just before its block map is read).
	Conf             InputDirSource
	MaxCallsPerCycle int
	// RetryAfter is how long an unreadable input is left before it is
	// tried again (default 10 min): a missing path stays missing for the
	// job's life, a NameNode outage does not.
	RetryAfter time.Duration
	// Retain keeps a job's entry this long after it was last seen running
	// (default 2 h).
	Retain time.Duration
	Log    hclog.Logger

	mu    sync.Mutex
	cache map[string]*cachedInput // job id → input
	last  *InputsReport
}

// Last is the latest cycle's report (nil before the first), for the
// decision steps that run after Refresh in the same cycle.
func (b *BlockMaps) Last() *InputsReport {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.last
}

type cachedInput struct {
	in       JobInput
	lastSeen time.Time
	noInput  bool // the job conf names no input dir
}

// Refresh reads the block maps of running jobs not yet cached, within the
// budget, and returns every running job's input with its shares per
// partition and rack of snap.
func (b *BlockMaps) Refresh(ctx context.Context, snap cluster.Snapshot) *InputsReport {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cache == nil {
		b.cache = map[string]*cachedInput{}
	}
	budget := b.MaxCallsPerCycle
	if budget <= 0 {
		budget = DefaultMaxNameNodeCalls
	}
	retry := b.RetryAfter
	if retry <= 0 {
		retry = 10 * time.Minute
	}
	rep := &InputsReport{Jobs: map[string]JobInput{}}
	hostPart, hostRack := map[string]string{}, map[string]string{}
	for _, n := range snap.Nodes {
		hostPart[n.Host] = n.Partition
		if n.Rack != "" {
			hostRack[n.Host] = n.Rack
		}
	}
	start := b.Reader.Calls()
	// Oldest jobs first: the budget goes to the jobs that will still be
	// running when the next cycles come.
	apps := snap.RunningApps()
	sort.SliceStable(apps, func(i, j int) bool { return apps[i].StartedTime.Before(apps[j].StartedTime) })
	for _, a := range apps {
		if a.Job == nil {
			continue
		}
		c := b.cache[a.Job.ID]
		if len(a.Job.InputPaths) == 0 && b.Conf == nil || c != nil && c.noInput {
			rep.NoInput++
			continue
		}
		stale := c == nil || c.in.Err != "" && snap.Time.Sub(c.in.ReadAt) >= retry
		if stale {
			// Every read costs at least one call (a conf read when the
			// input is unreadable), so jobs read are capped too.
			if int(b.Reader.Calls()-start) >= budget || rep.Read >= budget {
				rep.Deferred++
				if c == nil {
					continue
				}
			} else {
				c = b.read(ctx, a, snap.Time)
				b.cache[a.Job.ID] = c
				rep.Read++
				if c.noInput {
					rep.NoInput++
					continue
				}
			}
		}
		c.lastSeen = snap.Time
		in := c.in
		if m := in.m; m != nil {
			in.ByPartition = m.LocalFractions(hostPart)
			in.ByRack = rackShares(m, hostRack)
		}
		rep.Jobs[a.ID] = in
	}
	rep.Calls = int(b.Reader.Calls() - start)
	retain := b.Retain
	if retain <= 0 {
		retain = 2 * time.Hour
	}
	for id, c := range b.cache {
		if snap.Time.Sub(c.lastSeen) > retain {
			delete(b.cache, id)
		}
	}
	b.last = rep
	return rep
}

func (b *BlockMaps) read(ctx context.Context, a cluster.App, now time.Time) *cachedInput {
	in := JobInput{AppID: a.ID, JobID: a.Job.ID, Queue: a.Queue, Paths: a.Job.InputPaths, ReadAt: now}
	if len(in.Paths) == 0 {
		dir, err := b.Conf.JobInputDir(ctx, a, a.Job.ID)
		if err != nil {
			in.Err = fmt.Sprintf("read input paths of %s: %v", a.Job.ID, err)
			return &cachedInput{in: in, lastSeen: now}
		}
		in.Paths = hdfs.SplitInputDirs(dir)
		if len(in.Paths) == 0 {
			return &cachedInput{in: in, lastSeen: now, noInput: true}
		}
	}
	m, err := b.Reader.JobBlockMap(ctx, in.Paths)
	if err != nil {
		in.Err = fmt.Sprintf("read block map of %s (input %v): %v", a.Job.ID, in.Paths, err)
		if b.Log != nil {
			b.Log.Warn("job input unreadable", "app", a.ID, "job", a.Job.ID, "paths", in.Paths, "error", err)
		}
	} else {
		in.m, in.Bytes = m, m.Bytes
	}
	return &cachedInput{in: in, lastSeen: now}
}

// rackShares is the share of the input with a replica in each rack. The
// RM's rack of a host wins over the NameNode's (they are the same topology
// script on a sane cluster); DataNodes without a NodeManager use the
// NameNode's.
func rackShares(m *hdfs.BlockMap, hostRack map[string]string) map[string]float64 {
	racks := make(map[string]string, len(m.RackOf))
	for h, r := range m.RackOf {
		racks[h] = r
	}
	for h, r := range hostRack {
		racks[h] = r
	}
	return m.LocalFractions(racks)
}

// Input returns the cached input of a job (running or recently finished).
func (b *BlockMaps) Input(jobID string) (JobInput, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c, ok := b.cache[jobID]
	if !ok || c.in.m == nil {
		return JobInput{}, false
	}
	return c.in, true
}

// Attempt localities, as MapReduce's job counters name them.
const (
	LocalityNode = "NODE_LOCAL"
	LocalityRack = "RACK_LOCAL"
	LocalityOff  = "OFF_SWITCH"
)

// AttemptLocality infers where a finished map attempt read from: the
// job's block map and the attempt's host and rack. A host holding none of
// the job's blocks read remotely — rack-local when its rack holds some,
// else off-switch; that much is certain. A host holding some blocks is
// taken as node-local: schedulers give a node its own blocks first, so
// only the last maps of a job can land there on another block's split
// (the REST API does not say which split an attempt read). Unknown ("")
// when the job's block map is not cached.
func (b *BlockMaps) AttemptLocality(jobID string, at cluster.Attempt) string {
	in, ok := b.Input(jobID)
	if !ok {
		return ""
	}
	m := in.m
	host := hostOfAddr(at.NodeHTTPAddress)
	if host == "" {
		host = hostOfAddr(at.NodeID)
	}
	if m.BlocksByHost[host] > 0 {
		return LocalityNode
	}
	if at.Rack != "" {
		for _, r := range m.RackOf {
			if r == at.Rack {
				return LocalityRack
			}
		}
	}
	return LocalityOff
}

func hostOfAddr(a string) string {
	for i := 0; i < len(a); i++ {
		if a[i] == ':' {
			return a[:i]
		}
	}
	return a
}
