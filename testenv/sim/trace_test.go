package sim

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

const smallSWIM = "j0\t10\t10\t1000\t0\t0\n" + // tiny: 1 map, no reduce
	"j1\t1000\t990\t268435456\t2147483648\t0\n" + // 2 blocks: fb-small, 2 reduces
	"j2\t3700\t2700\t10737418240\t0\t0\n" + // 80 blocks: fb-large, hour 1
	"j3\t7300\t3600\t1000\t0\t0\n" // hour 2

const traceScenarioYAML = `name: mine
node_types:
  - {name: cpu, count: 2, memory_mb: 16384, vcores: 8}
conf:
  yarn.scheduler.capacity.root.queues: "adhoc,etl"
  yarn.scheduler.capacity.root.adhoc.capacity: "50"
  yarn.scheduler.capacity.root.etl.capacity: "50"
`

func writeTrace(t *testing.T, scenarioTail string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "week.tsv"), []byte(smallSWIM), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(path, []byte(traceScenarioYAML+scenarioTail), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTraceKeyAsJobSource(t *testing.T) {
	cases := []struct {
		name  string
		tail  string
		want  []string // name:class:queue:maps:reduces@seconds
		check func(*Scenario) error
	}{
		{"file only, SWIM rules by default", "trace: week.tsv\n",
			[]string{"j0:fb-tiny:adhoc:1:0@10", "j1:fb-small:adhoc:2:2@1000", "j2:fb-large:etl:80:0@3700", "j3:fb-tiny:adhoc:1:0@7300"}, nil},
		{"one hour from hour 1", "trace: {file: week.tsv, from_hour: 1, hours: 1}\n",
			[]string{"j2:fb-large:etl:80:0@100"}, nil},
		{"sampled every other hour, compressed 2x", "trace: {file: week.tsv, sample_every: 2, compress: 2}\n",
			[]string{"j0:fb-tiny:adhoc:1:0@5", "j1:fb-small:adhoc:2:2@500", "j3:fb-tiny:adhoc:1:0@1850"}, nil},
		{"queues overridden", "trace: {file: week.tsv, hours: 1, queues: {fb-tiny: etl}}\n",
			[]string{"j0:fb-tiny:etl:1:0@10", "j1:fb-small:adhoc:2:2@1000"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc, err := LoadScenario(writeTrace(t, c.tail))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, j := range sc.Jobs {
				got = append(got, j.Name+":"+j.Class+":"+j.Queue+":"+itoa(j.Maps)+":"+itoa(j.Reduces)+"@"+itoa(int(j.At/time.Second)))
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("jobs %v, want %v", got, c.want)
			}
			for _, cl := range []string{"fb-tiny", "fb-small", "fb-large"} {
				spec, ok := sc.Class(cl)
				if !ok {
					t.Errorf("class %s not added", cl)
				}
				if len(spec.Speed) != 0 {
					t.Errorf("class %s speeds %v name node types this cluster lacks", cl, spec.Speed)
				}
			}
			if _, err := NewCluster(sc, 1); err != nil {
				t.Errorf("cluster: %v", err)
			}
		})
	}
}

func TestTraceKeyErrors(t *testing.T) {
	for tail, want := range map[string]string{
		"trace: nosuch.tsv\n":                     "nosuch.tsv",
		"trace: {hours: 2}\n":                     "file is required",
		"trace: {file: week.tsv, compress: -1}\n": "must not be negative",
		"trace: {file: week.tsv, from_hour: 9}\n": "no jobs in the hours chosen",
	} {
		_, err := LoadScenario(writeTrace(t, tail))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one naming %q", tail, err, want)
		}
	}
}

func TestFacebookScenariosFromTrace(t *testing.T) {
	for name, check := range map[string]func(*Scenario) bool{
		"fb-2009": func(sc *Scenario) bool { return len(sc.Jobs) > 0 && sc.Jobs[len(sc.Jobs)-1].At <= 2*time.Hour },
		"fb-2009-day": func(sc *Scenario) bool {
			return sc.Jobs[len(sc.Jobs)-1].At > 5*time.Hour && sc.Jobs[len(sc.Jobs)-1].At <= 6*time.Hour
		},
		"fb-2009-saturated": func(sc *Scenario) bool { return sc.Jobs[len(sc.Jobs)-1].At <= 15*time.Minute },
	} {
		sc, err := LoadScenario(name)
		if errors.Is(err, ErrTraceMissing) {
			t.Skipf("%v", err)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !check(sc) {
			t.Errorf("%s: %d jobs, last at %v: not the replay window it describes", name, len(sc.Jobs), sc.Jobs[len(sc.Jobs)-1].At)
		}
		if sc.TrueSpeed("gpu", "fb-large") != 2.5 {
			t.Errorf("%s: fb-large on gpu %v, want 2.5 (SWIM rules)", name, sc.TrueSpeed("gpu", "fb-large"))
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestSpeedChanges(t *testing.T) {
	sc, err := ParseScenario([]byte(`name: drift
node_types:
  - {name: cpu, count: 1, memory_mb: 8192, vcores: 4}
  - {name: gpu, count: 1, memory_mb: 8192, vcores: 4}
classes:
  - name: train
    map_seconds: 60
    speed: {gpu: 4}
    speed_changes: [{at: 2h, speed: {gpu: 2}}, {at: 1h, speed: {gpu: 3, cpu: 1.5}}]
conf:
  yarn.scheduler.capacity.root.queues: default
`), "inline")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		typ   string
		since time.Duration
		want  float64
	}{{"gpu", 0, 4}, {"gpu", time.Hour, 3}, {"gpu", 3 * time.Hour, 2}, {"cpu", 0, 1}, {"cpu", 3 * time.Hour, 1.5}} {
		if got := sc.SpeedAt(c.typ, "train", c.since); got != c.want {
			t.Errorf("SpeedAt(%s, %v) = %v, want %v", c.typ, c.since, got, c.want)
		}
	}
	_, err = ParseScenario([]byte(`name: bad
node_types: [{name: cpu, count: 1, memory_mb: 8192, vcores: 4}]
classes: [{name: x, map_seconds: 1, speed_changes: [{at: 1h, speed: {tpu: 2}}]}]
conf: {yarn.scheduler.capacity.root.queues: default}
`), "inline")
	if err == nil || !strings.Contains(err.Error(), `speed_changes[0]: unknown node type "tpu"`) {
		t.Errorf("error %v, want one naming the unknown type", err)
	}
}
