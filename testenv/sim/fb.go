package sim

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrTraceMissing means the SWIM Facebook 2009 trace is not on this machine
// (it lives in ../shared/traces and is not committed with the project).
var ErrTraceMissing = errors.New("SWIM FB-2009 trace not found")

const traceFile = "FB-2009_samples_24_times_1hr_0.tsv"

// FacebookTraceHours is how much of the trace's day the fb-2009 scenario
// replays (the first hours), to keep a benchmark run in minutes.
const FacebookTraceHours = 2

// FacebookTrace builds the fb-2009 scenario from SWIM's Facebook 2009 trace
// (columns: name, submit s, gap s, map input bytes, shuffle bytes, reduce
// output bytes). How bytes become tasks and classes — the trace has no task
// times or node types, so these are choices, stated here (SWIMRules):
//   - maps = ceil(input / 128 MiB), at least 1; reduces = ceil(shuffle / 1 GiB),
//     0 when there is no shuffle, at most 64;
//   - class by input size: fb-tiny (< 1 block: short, I/O-bound, indifferent
//     to node type), fb-small (< 64 blocks: 1.3x on cpu-new), fb-large
//     (≥ 64 blocks: CPU-heavy aggregation, 1.5x on cpu-new, 2.5x on gpu);
//   - queue by class: tiny and small → adhoc, large → etl (a common split);
//   - the cluster is hetero-100's 100 nodes (60 cpu-old, 30 cpu-new, 10 GPU
//     compute-only nodes in a non-exclusive gpu partition).
//
// dir "" searches ../shared/traces upward from the working directory.
func FacebookTrace(dir string) (*Scenario, error) {
	return facebookScenario(dir, "fb-2009", TraceSpec{Hours: FacebookTraceHours},
		"First hours of SWIM's Facebook 2009 trace on hetero-100's nodes; see sim.FacebookTrace for how bytes become tasks.")
}

// facebookScenario is hetero-100's cluster with two queues (adhoc 40%, etl
// 60%, in both partitions) and the trace's jobs chosen by spec.
func facebookScenario(dir, name string, spec TraceSpec, description string) (*Scenario, error) {
	path, err := findTrace(dir)
	if err != nil {
		return nil, err
	}
	base, err := LoadScenario("hetero-100")
	if err != nil {
		return nil, err
	}
	sc := *base
	sc.Name = name
	sc.Description = description
	sc.Generators = nil
	sc.Classes = nil
	conf := map[string]string{}
	for k, v := range base.Conf {
		conf[k] = v
	}
	// Two queues: adhoc and etl, 40/60 in both partitions.
	for k := range conf {
		if strings.HasPrefix(k, "yarn.scheduler.capacity.root.") && strings.Count(k, ".") > 4 {
			delete(conf, k)
		}
	}
	conf["yarn.scheduler.capacity.root.queues"] = "adhoc,etl"
	for q, c := range map[string]string{"adhoc": "40", "etl": "60"} {
		p := "yarn.scheduler.capacity.root." + q
		conf[p+".capacity"], conf[p+".maximum-capacity"] = c, "100"
		conf[p+".accessible-node-labels"] = "gpu"
		conf[p+".accessible-node-labels.gpu.capacity"], conf[p+".accessible-node-labels.gpu.maximum-capacity"] = c, "100"
	}
	sc.Conf = conf
	spec.File = path
	sc.Trace = &spec
	if err := sc.applyTrace(""); err != nil {
		return nil, err
	}
	sc.defaults()
	if err := sc.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &sc, nil
}

// TraceSpec is a scenario's `trace:` key: its jobs come from a SWIM-format
// trace, turned into tasks by SWIMRules. Written either as `trace: FILE` or
// as a mapping with the options below.
type TraceSpec struct {
	File string `yaml:"file"`
	// From and Hours choose the hours of the trace replayed, [From,
	// From+Hours) in trace time; Hours 0 replays to the end.
	From  float64 `yaml:"from_hour"`
	Hours float64 `yaml:"hours"`
	// SampleEvery replays one hour in every SampleEvery (e.g. 4: hours 0,
	// 4, 8, …), each shifted to follow the previous sample, so a whole day's
	// changing mix runs in a fraction of its time. 0 or 1: every hour.
	SampleEvery int `yaml:"sample_every"`
	// Compress divides submission times (after sampling): 2 submits the
	// trace's jobs twice as fast, to load the cluster until it stays full.
	Compress float64 `yaml:"compress"`
	// Queues maps a class to the queue its jobs go to (default SWIMRules:
	// fb-tiny and fb-small → adhoc, fb-large → etl).
	Queues map[string]string `yaml:"queues"`
}

// UnmarshalYAML accepts `trace: FILE` as well as the mapping form.
func (t *TraceSpec) UnmarshalYAML(unmarshal func(any) error) error {
	var file string
	if err := unmarshal(&file); err == nil {
		t.File = file
		return nil
	}
	type plain TraceSpec
	var p plain
	if err := unmarshal(&p); err != nil {
		return err
	}
	*t = TraceSpec(p)
	return nil
}

// SWIMRules are the default classes for a trace's jobs (see FacebookTrace).
// Speeds name hetero-100's node types; on a cluster without them the
// factor is dropped (the class runs at speed 1 there).
var SWIMRules = []ClassSpec{
	{Name: "fb-tiny", MapSeconds: 8, ShuffleSeconds: 5, ReduceSeconds: 10, MapMemoryMB: 2048, MapVCores: 1},
	{Name: "fb-small", MapSeconds: 30, ShuffleSeconds: 15, ReduceSeconds: 30, MapMemoryMB: 2048, MapVCores: 1, Speed: map[string]float64{"cpu-new": 1.3}},
	{Name: "fb-large", MapSeconds: 60, ShuffleSeconds: 30, ReduceSeconds: 60, MapMemoryMB: 2048, MapVCores: 1, Speed: map[string]float64{"cpu-new": 1.5, "gpu": 2.5}},
}

var swimQueues = map[string]string{"fb-tiny": "adhoc", "fb-small": "adhoc", "fb-large": "etl"}

// applyTrace appends the trace's jobs to the scenario and adds the default
// classes it lacks; a relative file is resolved against dir (the scenario
// file's directory).
func (sc *Scenario) applyTrace(dir string) error {
	t := sc.Trace
	if t == nil {
		return nil
	}
	if t.File == "" {
		return errors.New("trace: file is required")
	}
	if t.Compress < 0 || t.Hours < 0 || t.From < 0 || t.SampleEvery < 0 {
		return fmt.Errorf("trace: from_hour, hours, sample_every and compress must not be negative")
	}
	path := t.File
	if !filepath.IsAbs(path) && dir != "" {
		path = filepath.Join(dir, path)
	}
	types := map[string]bool{}
	for _, nt := range sc.NodeTypes {
		types[nt.Name] = true
	}
	for _, def := range SWIMRules {
		if _, ok := sc.Class(def.Name); ok {
			continue
		}
		c := def
		c.Speed = map[string]float64{}
		for typ, s := range def.Speed {
			if types[typ] {
				c.Speed[typ] = s
			}
		}
		sc.Classes = append(sc.Classes, c)
	}
	jobs, err := ReadSWIM(path, *t)
	if err != nil {
		return err
	}
	sc.Jobs = append(sc.Jobs, jobs...)
	return nil
}

// ReadSWIM reads a SWIM-format trace into jobs by SWIMRules, replaying the
// hours spec chooses.
func ReadSWIM(path string, spec TraceSpec) ([]JobSpec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace %s: %w", path, err)
	}
	defer f.Close()
	every := max(spec.SampleEvery, 1)
	compress := spec.Compress
	if compress == 0 {
		compress = 1
	}
	queues := map[string]string{}
	for k, v := range swimQueues {
		queues[k] = v
	}
	for k, v := range spec.Queues {
		queues[k] = v
	}
	block := float64(int64(128) << 20)
	var jobs []JobSpec
	scan := bufio.NewScanner(f)
	line := 0
	for scan.Scan() {
		line++
		if strings.TrimSpace(scan.Text()) == "" {
			continue
		}
		cols := strings.Split(scan.Text(), "\t")
		if len(cols) < 6 {
			return nil, fmt.Errorf("%s line %d: want 6 tab-separated columns, got %d", path, line, len(cols))
		}
		submit, err1 := strconv.ParseFloat(cols[1], 64)
		input, err2 := strconv.ParseFloat(cols[3], 64)
		shuffle, err3 := strconv.ParseFloat(cols[4], 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		at, ok := replayTime(submit, spec.From, spec.Hours, every)
		if !ok {
			continue
		}
		maps := int(math.Max(1, math.Ceil(input/block)))
		reduces := int(math.Min(64, math.Ceil(shuffle/float64(1<<30))))
		class := "fb-tiny"
		switch {
		case maps >= 64:
			class = "fb-large"
		case input >= block:
			class = "fb-small"
		}
		if maps > 2000 {
			maps = 2000 // the trace's largest jobs; capped to bound a run
		}
		jobs = append(jobs, JobSpec{At: time.Duration(at / compress * float64(time.Second)), Name: cols[0], Class: class, Queue: queues[class],
			User: "fb", Maps: maps, Reduces: reduces, Repeat: 1, Tags: []string{"jobclass=" + class}})
	}
	if err := scan.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("trace %s: no jobs in the hours chosen (from_hour %g, hours %g)", path, spec.From, spec.Hours)
	}
	return jobs, nil
}

// replayTime maps a trace submission time to its replay time: inside
// [from, from+hours) and, when sampling, in a kept hour (the kept hours are
// laid end to end).
func replayTime(submit, from, hours float64, every int) (float64, bool) {
	rel := submit - from*3600
	if rel < 0 || (hours > 0 && rel >= hours*3600) {
		return 0, false
	}
	hour := int(rel / 3600)
	if hour%every != 0 {
		return 0, false
	}
	return float64(hour/every)*3600 + (rel - float64(hour)*3600), true
}

func findTrace(dir string) (string, error) {
	if dir != "" {
		p := filepath.Join(dir, traceFile)
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w at %s", ErrTraceMissing, p)
		}
		return p, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrTraceMissing, err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "traces", traceFile)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		p = filepath.Join(d, "..", "shared", "traces", traceFile)
		if _, err := os.Stat(p); err == nil {
			return filepath.Clean(p), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%w (looked for shared/traces/%s above %s)", ErrTraceMissing, traceFile, wd)
		}
	}
}

// traceScenario builds the named scenarios taken from the FB-2009 trace
// besides fb-2009 itself (issue 18); ok false for any other name.
func traceScenario(name string) (sc *Scenario, ok bool, err error) {
	switch name {
	case "fb-2009-day":
		// The whole day, its hourly mix changing: one hour in four (hours
		// 0, 4, …, 20) laid end to end, six hours of replay instead of 24,
		// so a benchmark run stays in minutes.
		sc, err = facebookScenario("", name, TraceSpec{Hours: 24, SampleEvery: 4},
			"SWIM's Facebook 2009 trace over its whole day, sampled: hours 0, 4, 8, 12, 16 and 20 replayed back to back (6 h); see sim.FacebookTrace.")
	case "fb-2009-saturated":
		// Hours 6-12 (the day's busiest stretch, 1,624 jobs) submitted 24×
		// faster, in 15 minutes: the cluster stays full (measured, stock,
		// seed 1: makespan 32 min, mean completion 65 s against 29 s
		// uncompressed). The first two hours stay light even at 64×: the
		// 100 nodes never fill.
		sc, err = facebookScenario("", name, TraceSpec{From: 6, Hours: 6, Compress: 24},
			"Hours 6-12 of SWIM's Facebook 2009 trace submitted 24x faster (15 min), so the cluster stays full; see sim.FacebookTrace.")
	default:
		return nil, false, nil
	}
	return sc, true, err
}
