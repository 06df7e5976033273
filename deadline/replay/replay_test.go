package replay

import (
	"math"
	"testing"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

func one(string, string) float64 { return 1 }

func TestRunCases(t *testing.T) {
	gpu3 := func(class, typ string) float64 {
		if typ == "gpu" && class == "train" {
			return 3
		}
		return 1
	}
	cases := []struct {
		name  string
		pools []Pool
		jobs  []Job
		cfg   Config
		rate  Rate
		want  map[string]float64 // class → mean completion (s)
	}{
		{"AM then maps one at a time", []Pool{{"", "cpu", 2}},
			[]Job{{Queue: "a", Class: "x", Maps: 3, MapWork: 10}},
			Config{}, one, map[string]float64{"x": 30}},
		{"maps, then reduces", []Pool{{"", "cpu", 3}},
			[]Job{{Queue: "a", Class: "x", Maps: 2, MapWork: 10, MapRead: 2, Reduces: 1, ReduceSeconds: 5}},
			Config{}, one, map[string]float64{"x": 17}},
		{"a job waits for the slots the first one holds (FIFO in the queue)", []Pool{{"", "cpu", 3}},
			[]Job{{Queue: "a", Class: "x", Maps: 2, MapWork: 10}, {Queue: "a", Class: "y", Submit: time.Second, Maps: 1, MapWork: 10}},
			Config{}, one, map[string]float64{"x": 10, "y": 19}},
		{"routed to an exclusive partition at its rate there", []Pool{{"", "cpu", 4}, {"gpu", "gpu", 2}},
			[]Job{{Queue: "ml", Class: "train", Maps: 3, MapWork: 30}},
			Config{Queues: map[string]Queue{"ml": {Home: "gpu", Guarantee: map[string]float64{"gpu": 1}, Max: map[string]float64{"gpu": 1}}}, Exclusive: map[string]bool{"gpu": true}},
			gpu3, map[string]float64{"train": 30}},
		{"a non-exclusive partition lends idle slots to the default partition", []Pool{{"", "cpu", 2}, {"gpu", "gpu", 2}},
			[]Job{{Queue: "a", Class: "x", Maps: 3, MapWork: 10}},
			Config{}, one, map[string]float64{"x": 10}},
		{"an exclusive one does not", []Pool{{"", "cpu", 2}, {"gpu", "gpu", 2}},
			[]Job{{Queue: "a", Class: "x", Maps: 3, MapWork: 10}},
			Config{Exclusive: map[string]bool{"gpu": true}}, one, map[string]float64{"x": 30}},
		{"the queue furthest under its guarantee is served first", []Pool{{"", "cpu", 4}},
			[]Job{{Queue: "a", Class: "x", Maps: 4, MapWork: 10}, {Queue: "b", Class: "y", Maps: 4, MapWork: 10}},
			Config{Queues: map[string]Queue{"a": {Guarantee: map[string]float64{"": 0.75}, Max: map[string]float64{"": 1}}, "b": {Guarantee: map[string]float64{"": 0.25}, Max: map[string]float64{"": 1}}}},
			one, map[string]float64{"x": 20, "y": 40}},
		{"a ceiling holds a queue back", []Pool{{"", "cpu", 4}},
			[]Job{{Queue: "a", Class: "x", Maps: 4, MapWork: 10}},
			Config{Queues: map[string]Queue{"a": {Guarantee: map[string]float64{"": 0.5}, Max: map[string]float64{"": 0.5}}}},
			one, map[string]float64{"x": 40}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Run(c.pools, c.jobs, c.cfg, c.rate)
			for class, want := range c.want {
				if got := r.Mean(class); math.Abs(got-want) > 1e-6 {
					t.Errorf("%s: mean %v, want %v", class, got, want)
				}
			}
		})
	}
}

func TestNeverServedIsInfinite(t *testing.T) {
	r := Run([]Pool{{"gpu", "gpu", 2}}, []Job{{Queue: "a", Class: "x", Maps: 1, MapWork: 1}}, Config{Exclusive: map[string]bool{"gpu": true}}, one)
	if !math.IsInf(r.Mean("x"), 1) {
		t.Fatalf("a job with no slot it may use: mean %v, want +Inf", r.Mean("x"))
	}
}

func TestFromTreeModes(t *testing.T) {
	conf := schedconf.Conf{
		"yarn.scheduler.capacity.root.queues":                                       "prod,dev",
		"yarn.scheduler.capacity.root.accessible-node-labels":                       "*",
		"yarn.scheduler.capacity.root.accessible-node-labels.gpu.capacity":          "100",
		"yarn.scheduler.capacity.root.prod.capacity":                                "60",
		"yarn.scheduler.capacity.root.prod.queues":                                  "etl,bi",
		"yarn.scheduler.capacity.root.prod.accessible-node-labels":                  "gpu",
		"yarn.scheduler.capacity.root.prod.accessible-node-labels.gpu.capacity":     "100",
		"yarn.scheduler.capacity.root.prod.etl.capacity":                            "3w",
		"yarn.scheduler.capacity.root.prod.bi.capacity":                             "1w",
		"yarn.scheduler.capacity.root.prod.etl.accessible-node-labels":              "gpu",
		"yarn.scheduler.capacity.root.prod.etl.accessible-node-labels.gpu.capacity": "100",
		"yarn.scheduler.capacity.root.prod.etl.default-node-label-expression":       "gpu",
		"yarn.scheduler.capacity.root.dev.capacity":                                 "40",
		"yarn.scheduler.capacity.root.dev.maximum-capacity":                         "50",
	}
	tree, err := schedconf.ParseTree(conf)
	if err != nil {
		t.Fatal(err)
	}
	c := FromTree(tree, nil)
	want := map[string]struct {
		home     string
		def, gpu float64
		max      float64
	}{
		"root.prod.etl": {"gpu", 0.45, 1, 1},
		"root.prod.bi":  {"", 0.15, 0, 1},
		"root.dev":      {"", 0.40, 0, 0.5},
	}
	for path, w := range want {
		q := c.Queues[path]
		if q.Home != w.home || math.Abs(q.Guarantee[""]-w.def) > 1e-9 || math.Abs(q.Guarantee["gpu"]-w.gpu) > 1e-9 || math.Abs(q.Max[""]-w.max) > 1e-9 {
			t.Errorf("%s: %+v, want %+v", path, q, w)
		}
	}
}

// BenchmarkRun is one replay of a busy day: 500 jobs of 10–310 maps in 5
// queues on 4,000 default slots and 1,200 labelled ones (the replay
// strategy runs it per candidate and per draw of the day, hundreds of
// times an hour). go test ./deadline/replay -bench Run -run '^$'
func BenchmarkRun(b *testing.B) {
	pools := []Pool{{"", "cpu", 4000}, {"gpu", "gpu", 400}, {"ssd", "ssd", 800}}
	cfg := Config{Queues: map[string]Queue{}}
	var jobs []Job
	for q := 0; q < 5; q++ {
		name := string(rune('a' + q))
		cfg.Queues[name] = Queue{Guarantee: map[string]float64{"": 0.2, "gpu": 0.2, "ssd": 0.2}, Max: map[string]float64{"": 1, "gpu": 1, "ssd": 1}}
	}
	for i := 0; i < 500; i++ {
		jobs = append(jobs, Job{Queue: string(rune('a' + i%5)), Class: string(rune('a' + i%5)), Submit: time.Duration(i*172) * time.Second,
			Maps: 10 + (i*37)%300, Reduces: 2, MapWork: 60, ReduceSeconds: 30})
	}
	rate := func(class, typ string) float64 {
		if typ == "gpu" {
			return 3
		}
		return 1
	}
	b.ResetTimer()
	for range b.N {
		Run(pools, jobs, cfg, rate)
	}
}
