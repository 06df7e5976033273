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
// times or node types, so these are choices, stated here:
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
	path, err := findTrace(dir)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTraceMissing, err)
	}
	defer f.Close()
	base, err := LoadScenario("hetero-100")
	if err != nil {
		return nil, err
	}
	sc := *base
	sc.Name = "fb-2009"
	sc.Description = "First hours of SWIM's Facebook 2009 trace on hetero-100's nodes; see sim.FacebookTrace for how bytes become tasks."
	sc.Generators = nil
	sc.Classes = []ClassSpec{
		{Name: "fb-tiny", MapSeconds: 8, ShuffleSeconds: 5, ReduceSeconds: 10, MapMemoryMB: 2048, MapVCores: 1},
		{Name: "fb-small", MapSeconds: 30, ShuffleSeconds: 15, ReduceSeconds: 30, MapMemoryMB: 2048, MapVCores: 1, Speed: map[string]float64{"cpu-new": 1.3}},
		{Name: "fb-large", MapSeconds: 60, ShuffleSeconds: 30, ReduceSeconds: 60, MapMemoryMB: 2048, MapVCores: 1, Speed: map[string]float64{"cpu-new": 1.5, "gpu": 2.5}},
	}
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
	block := float64(int64(128) << 20)
	sc.Jobs = nil
	sc2 := bufio.NewScanner(f)
	line := 0
	for sc2.Scan() {
		line++
		cols := strings.Split(sc2.Text(), "\t")
		if len(cols) < 6 {
			return nil, fmt.Errorf("%s line %d: want 6 tab-separated columns, got %d", path, line, len(cols))
		}
		submit, err1 := strconv.ParseFloat(cols[1], 64)
		input, err2 := strconv.ParseFloat(cols[3], 64)
		shuffle, err3 := strconv.ParseFloat(cols[4], 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		if submit > FacebookTraceHours*3600 {
			break
		}
		maps := int(math.Max(1, math.Ceil(input/block)))
		reduces := int(math.Min(64, math.Ceil(shuffle/float64(1<<30))))
		class, queue := "fb-tiny", "adhoc"
		switch {
		case maps >= 64:
			class, queue = "fb-large", "etl"
		case input >= block:
			class = "fb-small"
		}
		if maps > 2000 {
			maps = 2000 // the trace's largest jobs; capped to bound a run
		}
		sc.Jobs = append(sc.Jobs, JobSpec{At: time.Duration(submit * float64(time.Second)), Name: cols[0], Class: class, Queue: queue,
			User: "fb", Maps: maps, Reduces: reduces, Repeat: 1, Tags: []string{"jobclass=" + class}})
	}
	if err := sc2.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	sc.defaults()
	if err := sc.validate(); err != nil {
		return nil, fmt.Errorf("fb-2009: %w", err)
	}
	return &sc, nil
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
