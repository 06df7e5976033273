package sim

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
)

//go:embed scenarios/*.yaml
var scenarioFS embed.FS

// Scenario is a mini-cluster workload: node types, labels, queues (as
// Capacity Scheduler properties), job classes with their true speed per node
// type, and job arrivals. Scenarios are data (testenv/sim/scenarios/*.yaml).
type Scenario struct {
	Name           string    `yaml:"name"`
	Description    string    `yaml:"description"`
	Seed           int64     `yaml:"seed"`
	Start          time.Time `yaml:"start"`
	MaxAppPriority int       `yaml:"max_app_priority"`
	BlockSizeMB    int64     `yaml:"block_size_mb"`
	NoiseSigma     float64   `yaml:"noise_sigma"`
	// LuckSeed, when non-zero, draws everything after the arrivals (task
	// times' noise, replica placement) from its own seed: the same jobs
	// with other luck. Two runs that differ only in it measure how far
	// one configuration's class means move by chance alone.
	LuckSeed int64 `yaml:"luck_seed"`
	// HeartbeatOffset shifts the order in which nodes heartbeat (which
	// node is offered first each second). With the same luck it changes
	// nothing a configuration decides, only which container lands where
	// first: two runs that differ only in it measure how far a class mean
	// moves when a run's scheduling order alone changes (the noise in a
	// comparison of two configurations on the same luck).
	HeartbeatOffset int       `yaml:"heartbeat_offset"`
	Bandwidth       Bandwidth `yaml:"bandwidth_mb_per_s"`
	Racks           int       `yaml:"racks"`
	FileStore       bool      `yaml:"file_store"` // true: scheduler-conf not mutable
	// HadoopVersion is the release whose wire details the RM serves where
	// releases differ: "3.3.6" or "3.4.1" (the default; rmweb.ParseHadoopVersion).
	HadoopVersion string `yaml:"hadoop_version"`
	// ConfStore is yarn.scheduler.configuration.store.class: file (as
	// file_store: true), memory, fs, zk or leveldb; leveldb serves
	// scheduler-conf/validate broken as a real leveldb store breaks it.
	ConfStore string `yaml:"conf_store"`
	// LabelWritesReadEmpty makes the RM read every replace-node-to-labels
	// entry's labels as empty (rmweb.Options.ReplaceLabelsReadEmpty): a
	// label write answered 200 that does not land, as the real RM did with
	// a body under the wrong key.
	LabelWritesReadEmpty bool              `yaml:"label_writes_read_empty"`
	Labels               []LabelSpec       `yaml:"labels"`
	NodeTypes            []NodeTypeSpec    `yaml:"node_types"`
	Classes              []ClassSpec       `yaml:"classes"`
	Conf                 map[string]string `yaml:"conf"`
	Jobs                 []JobSpec         `yaml:"jobs"`
	Generators           []GeneratorSpec   `yaml:"generators"`
	// Trace adds the jobs of a SWIM-format trace (see TraceSpec, fb.go).
	Trace *TraceSpec `yaml:"trace"`

	// Preemption and speculative execution are switched on as an admin
	// would: yarn-site properties (yarn.resourcemanager.scheduler.monitor.enable,
	// yarn.resourcemanager.monitor.capacity.preemption.*) and mapred-site
	// properties (mapreduce.map.speculative, ...). See preempt.go, speculate.go.
	YarnSite   map[string]string `yaml:"yarn_site"`
	MapredSite map[string]string `yaml:"mapred_site"`
}

// Bandwidth is the read rate of a map's input by locality (Lee §4.3.1.2 Tr).
type Bandwidth struct {
	NodeLocal float64 `yaml:"node_local"`
	RackLocal float64 `yaml:"rack_local"`
	OffSwitch float64 `yaml:"off_switch"`
}

// LabelSpec is a node label.
type LabelSpec struct {
	Name      string `yaml:"name"`
	Exclusive bool   `yaml:"exclusive"`
}

// NodeTypeSpec is a group of identical nodes.
type NodeTypeSpec struct {
	Name     string `yaml:"name"`
	Count    int    `yaml:"count"`
	MemoryMB int64  `yaml:"memory_mb"`
	VCores   int64  `yaml:"vcores"`
	GPUs     int64  `yaml:"gpus"`
	Label    string `yaml:"label"`
	// DataNode false makes a compute-only node (no HDFS blocks; Lee §4.2).
	DataNode *bool `yaml:"datanode"`
	// Racks, when set, are the rack indices its nodes sit in (placement.go).
	Racks []int `yaml:"racks"`
}

// ClassSpec is a job class and its true speed per node type.
type ClassSpec struct {
	Name string `yaml:"name"`
	// MapSeconds is the processing time of one full block at speed 1.
	MapSeconds     float64            `yaml:"map_seconds"`
	ReduceSeconds  float64            `yaml:"reduce_seconds"`
	ShuffleSeconds float64            `yaml:"shuffle_seconds"`
	MapMemoryMB    int64              `yaml:"map_memory_mb"`
	MapVCores      int64              `yaml:"map_vcores"`
	MapGPUs        int64              `yaml:"map_gpus"`
	Speed          map[string]float64 `yaml:"speed"` // node type → factor (default 1)
	// SpeedChanges replace speed factors from a time on (a new version of
	// the job, a driver update): learned rates must follow (issue 18).
	SpeedChanges []SpeedChange `yaml:"speed_changes"`
	// Spark, when set, makes the class's jobs Spark applications
	// (spark_spec.go); map_seconds is then unused.
	Spark *SparkClassSpec `yaml:"spark"`
}

// SpeedChange sets a class's speed per node type from At (since the
// scenario's start) on; types it omits keep their factor.
type SpeedChange struct {
	At    time.Duration      `yaml:"at"`
	Speed map[string]float64 `yaml:"speed"`
}

// JobSpec is one job arrival (Repeat > 1 submits copies Every apart).
type JobSpec struct {
	At       time.Duration `yaml:"at"`
	Name     string        `yaml:"name"`
	Class    string        `yaml:"class"`
	Queue    string        `yaml:"queue"`
	User     string        `yaml:"user"`
	Maps     int           `yaml:"maps"`
	Reduces  int           `yaml:"reduces"`
	Priority int           `yaml:"priority"`
	Tags     []string      `yaml:"tags"`
	Label    string        `yaml:"node_label_expression"`
	Repeat   int           `yaml:"repeat"`
	Every    time.Duration `yaml:"every"`
	// InputRacks, when set, are the racks holding the job's input (placement.go).
	InputRacks []int `yaml:"input_racks"`
}

// GeneratorSpec draws Count jobs with exponential inter-arrival times.
type GeneratorSpec struct {
	Class        string        `yaml:"class"`
	Queue        string        `yaml:"queue"`
	User         string        `yaml:"user"`
	Count        int           `yaml:"count"`
	Start        time.Duration `yaml:"start"`
	MeanGap      time.Duration `yaml:"mean_gap"`
	MapsMin      int           `yaml:"maps_min"`
	MapsMax      int           `yaml:"maps_max"`
	Reduces      int           `yaml:"reduces"`
	DeadlineProb float64       `yaml:"deadline_prob"` // share of jobs with a deadline tag
	// DeadlineSlack multiplies a job's stand-alone estimate to set its goal.
	DeadlineSlack float64 `yaml:"deadline_slack"`
	// InputRacks, when set, are the racks holding its jobs' input (placement.go).
	InputRacks []int `yaml:"input_racks"`
}

// ErrUnknownScenario is returned for a name that is neither shipped nor a file.
var ErrUnknownScenario = errors.New("unknown scenario")

// Names lists the shipped scenarios.
func Names() []string {
	ents, _ := scenarioFS.ReadDir("scenarios")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	return out
}

// LoadScenario loads a shipped scenario by name, or a YAML file by path.
func LoadScenario(nameOrPath string) (*Scenario, error) {
	if nameOrPath == "fb-2009" {
		return FacebookTrace("")
	}
	if sc, ok, err := traceScenario(nameOrPath); ok {
		return sc, err
	}
	if nameOrPath == "hetero-100-tight" {
		return tightHetero()
	}
	data, err := scenarioFS.ReadFile("scenarios/" + nameOrPath + ".yaml")
	src := nameOrPath
	if err != nil {
		data, err = os.ReadFile(nameOrPath)
		if err != nil {
			return nil, fmt.Errorf("scenario %q: %w (shipped: %s)", nameOrPath, ErrUnknownScenario, strings.Join(Names(), ", "))
		}
		src = filepath.Clean(nameOrPath)
	}
	return ParseScenario(data, src)
}

// ParseScenario decodes and checks a scenario; errors name the field and line.
func ParseScenario(data []byte, source string) (*Scenario, error) {
	var sc Scenario
	if len(data) > MaxScenarioBytes {
		return nil, fmt.Errorf("scenario %s: %d bytes, above %d", source, len(data), MaxScenarioBytes)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&sc); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", source, err)
	}
	// A SWIM trace as the source of jobs (issue 18).
	if sc.Trace != nil {
		dir := ""
		if _, err := os.Stat(source); err == nil {
			dir = filepath.Dir(source)
		}
		if err := sc.applyTrace(dir); err != nil {
			return nil, fmt.Errorf("scenario %s: %w", source, err)
		}
	}
	sc.defaults()
	if err := sc.validate(); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", source, err)
	}
	return &sc, nil
}

func (sc *Scenario) defaults() {
	if sc.Start.IsZero() {
		sc.Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if sc.BlockSizeMB == 0 {
		sc.BlockSizeMB = 128
	}
	if sc.Bandwidth.NodeLocal == 0 {
		sc.Bandwidth = Bandwidth{NodeLocal: 400, RackLocal: 200, OffSwitch: 80}
	}
	if sc.Racks == 0 {
		sc.Racks = 1
	}
	if sc.ConfStore == "file" {
		sc.FileStore = true
	}
	for i := range sc.Classes {
		c := &sc.Classes[i]
		if c.MapMemoryMB == 0 {
			c.MapMemoryMB = 2048
		}
		if c.MapVCores == 0 {
			c.MapVCores = 1
		}
		if c.Spark != nil {
			c.Spark.defaults()
			if c.MapSeconds == 0 && len(c.Spark.Stages) > 0 {
				c.MapSeconds = c.Spark.Stages[0].TaskSeconds
			}
		}
	}
	for i := range sc.Jobs {
		if sc.Jobs[i].Repeat == 0 {
			sc.Jobs[i].Repeat = 1
		}
		if sc.Jobs[i].User == "" {
			sc.Jobs[i].User = "hadoop"
		}
	}
}

func (sc *Scenario) validate() error {
	var bad []string
	types := map[string]bool{}
	for i, nt := range sc.NodeTypes {
		if nt.Name == "" || nt.Count <= 0 || nt.MemoryMB <= 0 || nt.VCores <= 0 {
			bad = append(bad, fmt.Sprintf("node_types[%d]: needs name, count > 0, memory_mb > 0, vcores > 0", i))
		}
		types[nt.Name] = true
	}
	classes := map[string]bool{}
	for i, c := range sc.Classes {
		if c.Name == "" || c.MapSeconds <= 0 {
			bad = append(bad, fmt.Sprintf("classes[%d]: needs name and map_seconds > 0", i))
		}
		for t := range c.Speed {
			if !types[t] {
				bad = append(bad, fmt.Sprintf("classes[%d].speed: unknown node type %q", i, t))
			}
		}
		for k, ch := range c.SpeedChanges {
			for t := range ch.Speed {
				if !types[t] {
					bad = append(bad, fmt.Sprintf("classes[%d].speed_changes[%d]: unknown node type %q", i, k, t))
				}
			}
		}
		if c.Spark != nil {
			bad = append(bad, c.Spark.validate(i, types)...)
		}
		classes[c.Name] = true
	}
	for i, j := range sc.Jobs {
		if !classes[j.Class] {
			bad = append(bad, fmt.Sprintf("jobs[%d].class: unknown class %q", i, j.Class))
		}
		if j.Maps <= 0 {
			bad = append(bad, fmt.Sprintf("jobs[%d].maps: must be > 0", i))
		}
	}
	for i, g := range sc.Generators {
		if !classes[g.Class] {
			bad = append(bad, fmt.Sprintf("generators[%d].class: unknown class %q", i, g.Class))
		}
		if g.MapsMin <= 0 || g.MapsMax < g.MapsMin {
			bad = append(bad, fmt.Sprintf("generators[%d]: needs 0 < maps_min <= maps_max", i))
		}
	}
	if _, err := rmweb.ParseHadoopVersion(sc.HadoopVersion); err != nil {
		bad = append(bad, err.Error())
	}
	switch sc.ConfStore {
	case "", "file", "memory", "fs", "zk", "leveldb":
		if sc.FileStore && sc.ConfStore != "" && sc.ConfStore != "file" {
			bad = append(bad, fmt.Sprintf("conf_store %q contradicts file_store: true", sc.ConfStore))
		}
	default:
		bad = append(bad, fmt.Sprintf("conf_store %q: want file, memory, fs, zk or leveldb", sc.ConfStore))
	}
	bad = append(bad, sc.validatePlacement()...)
	if len(sc.NodeTypes) == 0 {
		bad = append(bad, "node_types: at least one is required")
	}
	bad = append(bad, sc.limits()...)
	if _, ok := sc.Conf["yarn.scheduler.capacity.root.queues"]; !ok {
		bad = append(bad, "conf: yarn.scheduler.capacity.root.queues is required")
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
}

// Class returns the named class.
func (sc *Scenario) Class(name string) (ClassSpec, bool) {
	for _, c := range sc.Classes {
		if c.Name == name {
			return c, true
		}
	}
	return ClassSpec{}, false
}

// TrueSpeed is the scenario's speed factor of a node type for a class.
func (sc *Scenario) TrueSpeed(nodeType, class string) float64 {
	c, ok := sc.Class(class)
	if !ok {
		return 1
	}
	if s, ok := c.Speed[nodeType]; ok && s > 0 {
		return s
	}
	return 1
}

// SpeedAt is TrueSpeed at a time since the scenario's start, after the
// class's speed changes up to then.
func (sc *Scenario) SpeedAt(nodeType, class string, since time.Duration) float64 {
	speed := sc.TrueSpeed(nodeType, class)
	c, _ := sc.Class(class)
	latest := time.Duration(-1)
	for _, ch := range c.SpeedChanges {
		if s, ok := ch.Speed[nodeType]; ok && s > 0 && since >= ch.At && ch.At > latest {
			speed, latest = s, ch.At
		}
	}
	return speed
}
