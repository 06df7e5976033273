package yarn

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Job-conf properties the sidecar reads.
const (
	// InputDirKey is the property FileInputFormat reads its input paths
	// from (comma-separated, "\," escaped; hdfs.SplitInputDirs splits it).
	InputDirKey = "mapreduce.input.fileinputformat.inputdir"
	// MapMemoryKey, MapVCoresKey and MapGPUKey are a map container's
	// request (MRJobConfig.MAP_MEMORY_MB, MAP_CPU_VCORES, and the
	// resource-type form mapreduce.map.resource.yarn.io/gpu).
	MapMemoryKey = "mapreduce.map.memory.mb"
	MapVCoresKey = "mapreduce.map.cpu.vcores"
	MapGPUKey    = "mapreduce.map.resource.yarn.io/gpu"
	// MapJavaOptsKey and HeapRatioKey size a map whose memory.mb is unset
	// (-1, mapred-default.xml's value since Hadoop 3): the AM asks for
	// ceil(Xmx / ratio) MB (JobConf.getMemoryRequired).
	MapJavaOptsKey = "mapreduce.map.java.opts"
	HeapRatioKey   = "mapreduce.job.heap.memory-mb.ratio"
	// ReduceMemoryKey, ReduceVCoresKey, ReduceGPUKey and ReduceJavaOptsKey
	// size a reduce container the same way (MRJobConfig.REDUCE_MEMORY_MB, ...).
	ReduceMemoryKey   = "mapreduce.reduce.memory.mb"
	ReduceVCoresKey   = "mapreduce.reduce.cpu.vcores"
	ReduceGPUKey      = "mapreduce.reduce.resource.yarn.io/gpu"
	ReduceJavaOptsKey = "mapreduce.reduce.java.opts"
)

// Defaults of JobConf.getMemoryRequired and MRJobConfig when the conf
// says nothing usable.
const (
	defaultMapMemoryMB = 1024
	defaultMapVCores   = 1
	defaultHeapRatio   = 0.8
)

// jobConf is what the sidecar takes from one MapReduce job's
// configuration. It does not change while the job runs, so it is read
// once per job (one request: jobs/{id}/conf) and shared by every user —
// the input dir for affinity, the map size for the usable bound and the
// preemption guard.
type jobConf struct {
	inputDir   string
	mapSize    cluster.Resource
	reduceSize cluster.Resource
}

// parseJobConf picks the properties the sidecar uses from a conf body.
func parseJobConf(conf confJSON) jobConf {
	props := make(map[string]string, len(conf.Conf.Property))
	for _, p := range conf.Conf.Property {
		props[p.Name] = strings.TrimSpace(p.Value)
	}
	return jobConf{inputDir: props[InputDirKey], mapSize: mapContainerSize(props),
		reduceSize: containerSize(props, ReduceMemoryKey, ReduceJavaOptsKey, ReduceVCoresKey, ReduceGPUKey)}
}

var xmxRE = regexp.MustCompile(`-Xmx(\d+)([kKmMgG]?)(?:\s|$)`)

// mapContainerSize is the container a job's AM asks for each map, after
// JobConf.getMemoryRequired: mapreduce.map.memory.mb when positive, else
// the heap of mapreduce.map.java.opts over the heap ratio, else 1024 MB;
// vcores default to 1 (MRJobConfig.DEFAULT_MAP_CPU_VCORES).
func mapContainerSize(props map[string]string) cluster.Resource {
	return containerSize(props, MapMemoryKey, MapJavaOptsKey, MapVCoresKey, MapGPUKey)
}

// containerSize is a task container by its memory, java opts, vcores and
// GPU keys (the map's or the reduce's; the defaults are the same).
func containerSize(props map[string]string, memoryKey, javaOptsKey, vcoresKey, gpuKey string) cluster.Resource {
	r := cluster.Resource{MemoryMB: defaultMapMemoryMB, VCores: defaultMapVCores}
	if mb, err := strconv.ParseInt(props[memoryKey], 10, 64); err == nil && mb > 0 {
		r.MemoryMB = mb
	} else if xmx := heapMB(props[javaOptsKey]); xmx > 0 {
		ratio := defaultHeapRatio
		if v, err := strconv.ParseFloat(strings.TrimSuffix(props[HeapRatioKey], "f"), 64); err == nil && v > 0 && v <= 1 {
			ratio = v
		}
		r.MemoryMB = int64(math.Ceil(float64(xmx) / ratio))
	}
	if v, err := strconv.ParseInt(props[vcoresKey], 10, 64); err == nil && v > 0 {
		r.VCores = v
	}
	if v, err := strconv.ParseInt(props[gpuKey], 10, 64); err == nil && v > 0 {
		r.GPUs = v
	}
	return r
}

// heapMB is the last -Xmx of java opts in MB (the JVM takes the last); 0
// when there is none.
func heapMB(opts string) int64 {
	m := xmxRE.FindAllStringSubmatch(opts, -1)
	if len(m) == 0 {
		return 0
	}
	last := m[len(m)-1]
	n, err := strconv.ParseInt(last[1], 10, 64)
	if err != nil {
		return 0
	}
	switch strings.ToLower(last[2]) {
	case "":
		return n >> 20
	case "k":
		return n >> 10
	case "g":
		return n << 10
	}
	return n
}

// confCache keeps each live job's conf by job id; Observe forgets the
// jobs whose app no longer runs.
type confCache struct {
	mu sync.Mutex
	m  map[string]jobConf
}

func (c *confCache) get(jobID string) (jobConf, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[jobID]
	return v, ok
}

func (c *confCache) put(jobID string, v jobConf) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]jobConf{}
	}
	c.m[jobID] = v
}

// keep forgets the confs of jobs whose app is not in apps.
func (c *confCache) keep(apps []cluster.App) {
	c.mu.Lock()
	defer c.mu.Unlock()
	live := make(map[string]bool, len(apps))
	for _, a := range apps {
		live[jobIDOf(a.ID)] = true
	}
	for id := range c.m {
		if !live[id] {
			delete(c.m, id)
		}
	}
}

// jobIDOf is a MapReduce app's job id: the AM names its one job after
// the app (job_<cluster ts>_<seq>).
func jobIDOf(appID string) string { return "job_" + strings.TrimPrefix(appID, "application_") }

// confCached reports whether an app's job conf is cached (its next job
// read costs no conf request).
func (c *Client) confCached(a cluster.App) bool {
	_, ok := c.confs.get(jobIDOf(a.ID))
	return ok
}

// jobConf returns a job's conf: cached, else read from its AM
// (jobs/{id}/conf through the RM proxy), or from JobHistory's once the AM
// is gone.
func (c *Client) jobConf(ctx context.Context, app cluster.App, jobID string) (jobConf, error) {
	if v, ok := c.confs.get(jobID); ok {
		return v, nil
	}
	b, err := c.amBase(app)
	if err != nil {
		return jobConf{}, err
	}
	var conf confJSON // Jersey: one property comes as an object, not a list
	err = c.getJSON(ctx, b.root+"/jobs/"+jobID+"/conf", nil, &conf)
	if amGone(err) && c.cfg.JHSAddress != "" {
		h, herr := c.jhsBase()
		if herr != nil {
			return jobConf{}, herr
		}
		conf = confJSON{}
		err = c.getJSON(ctx, h.root+"/jobs/"+jobID+"/conf", nil, &conf)
	}
	if err != nil {
		return jobConf{}, fmt.Errorf("job %s conf: %w", jobID, err)
	}
	v := parseJobConf(conf)
	c.confs.put(jobID, v)
	return v, nil
}

// JobInputDir returns a MapReduce job's mapreduce.input.fileinputformat.inputdir
// from its conf (the cached read the job's map size came from, else one
// request). "" with no error means the job has no such property (not a
// FileInputFormat job).
func (c *Client) JobInputDir(ctx context.Context, app cluster.App, jobID string) (string, error) {
	v, err := c.jobConf(ctx, app, jobID)
	return v.inputDir, err
}

// JobMapSize returns the container a MapReduce job asks for each map
// (mapContainerSize), from the same cached conf read as JobInputDir.
func (c *Client) JobMapSize(ctx context.Context, app cluster.App, jobID string) (cluster.Resource, error) {
	v, err := c.jobConf(ctx, app, jobID)
	return v.mapSize, err
}

// JobReduceSize returns the container a MapReduce job asks for each reduce,
// from the same cached conf read as JobMapSize (no extra request).
func (c *Client) JobReduceSize(ctx context.Context, app cluster.App, jobID string) (cluster.Resource, error) {
	v, err := c.jobConf(ctx, app, jobID)
	return v.reduceSize, err
}
