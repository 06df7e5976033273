package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yarn-sidecar/yarn-sidecar/testenv/experiment"
)

// An admin's own cluster, written by hand: two CPU nodes, one GPU node in a
// non-exclusive partition, two queues, a GPU-friendly class and an
// indifferent one, one job with a deadline.
const handScenario = `name: my-cluster
description: hand-written for the compare test
seed: 3
noise_sigma: 0.05
labels:
  - {name: gpu, exclusive: false}
node_types:
  - {name: cpu, count: 2, memory_mb: 16384, vcores: 8}
  - {name: gpu, count: 1, memory_mb: 16384, vcores: 8, gpus: 2, label: gpu, datanode: false}
classes:
  - {name: render, map_seconds: 60, shuffle_seconds: 5, reduce_seconds: 10, speed: {gpu: 3.0}}
  - {name: scan, map_seconds: 20, shuffle_seconds: 5, reduce_seconds: 10}
conf:
  yarn.scheduler.capacity.maximum-am-resource-percent: "0.5"
  yarn.scheduler.capacity.root.queues: "a,b"
  yarn.scheduler.capacity.root.accessible-node-labels: "*"
  yarn.scheduler.capacity.root.accessible-node-labels.gpu.capacity: "100"
  yarn.scheduler.capacity.root.a.capacity: "50"
  yarn.scheduler.capacity.root.a.maximum-capacity: "100"
  yarn.scheduler.capacity.root.a.accessible-node-labels: gpu
  yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.capacity: "50"
  yarn.scheduler.capacity.root.a.accessible-node-labels.gpu.maximum-capacity: "100"
  yarn.scheduler.capacity.root.b.capacity: "50"
  yarn.scheduler.capacity.root.b.maximum-capacity: "100"
  yarn.scheduler.capacity.root.b.accessible-node-labels: gpu
  yarn.scheduler.capacity.root.b.accessible-node-labels.gpu.capacity: "50"
  yarn.scheduler.capacity.root.b.accessible-node-labels.gpu.maximum-capacity: "100"
jobs:
  - {at: 10s, name: r1, class: render, queue: a, maps: 16, reduces: 1, tags: [jobclass=render]}
  - {at: 20s, name: s1, class: scan, queue: b, maps: 12, reduces: 1, tags: [jobclass=scan, deadline=+30m]}
  - {at: 60s, name: s2, class: scan, queue: b, maps: 8, reduces: 1, tags: [jobclass=scan]}
`

func TestCompareOnHandWrittenScenario(t *testing.T) {
	path := filepath.Join(t.TempDir(), "my-cluster.yaml")
	if err := os.WriteFile(path, []byte(handScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := runCompare([]string{"--scenario", path, "--seeds", "2", "-o", "json"}, &js); err != nil {
		t.Fatalf("compare -o json: %v", err)
	}
	var got experiment.ComparisonTable
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatalf("json output: %v\n%s", err, js.String())
	}
	if got.BestStatic == "" || len(got.Seeds) != 2 {
		t.Errorf("best static %q, seeds %v; want a name and 2 seeds", got.BestStatic, got.Seeds)
	}
	want := map[string]int{"render": 2, "scan": 4, "all": 6} // jobs over 2 seeds
	if len(got.Classes) != len(want) {
		t.Fatalf("classes %+v, want %v", got.Classes, want)
	}
	for _, c := range got.Classes {
		if c.Jobs != want[c.Class] {
			t.Errorf("%s: %d jobs, want %d", c.Class, c.Jobs, want[c.Class])
		}
		for mode, s := range map[string]experiment.ModeStats{"stock": c.Stock, "static": c.Static, "sidecar": c.Sidecar} {
			if s.MeanSeconds <= 0 || s.MedianSeconds <= 0 {
				t.Errorf("%s %s: mean %v median %v, want both > 0", c.Class, mode, s.MeanSeconds, s.MedianSeconds)
			}
		}
		wantGoals := map[string]int{"render": 0, "scan": 2, "all": 2}[c.Class]
		if c.Stock.Deadlines != wantGoals || c.Sidecar.Deadlines != wantGoals {
			t.Errorf("%s: deadlines %d (stock) %d (sidecar), want %d", c.Class, c.Stock.Deadlines, c.Sidecar.Deadlines, wantGoals)
		}
	}

	var tab bytes.Buffer
	if err := runCompare([]string{"--scenario", path, "--seeds", "2"}, &tab); err != nil {
		t.Fatalf("compare -o table: %v", err)
	}
	out := tab.String()
	for _, s := range []string{"scenario " + path, "best static configuration", "CLASS", "MEDIAN SIDECAR", "DEADLINES MET", "\nrender ", "\nscan ", "\nall "} {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q:\n%s", s, out)
		}
	}
}

func TestCompareRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{{}, {"--scenario", "lee-toy", "-o", "xml"}, {"--scenario", "lee-toy", "--seeds", "0"}, {"--scenario", "/no/such.yaml"}} {
		if err := runCompare(args, &bytes.Buffer{}); err == nil {
			t.Errorf("runCompare(%v): no error", args)
		}
	}
}

// An admin's nested tree in weight mode, two parents, on which compare
// crashed ("Illegal capacity sum of 0.67 for children of queue dev for
// label=gpu": the sweep wrote flat leaf percentages). The file is shared
// with testenv/experiment's sweep test.
const nestedWeightScenario = "../../testenv/experiment/testdata/nested-hand.yaml"

func TestCompareNestedWeightTree(t *testing.T) {
	var tab bytes.Buffer
	if err := runCompare([]string{"--scenario", nestedWeightScenario, "--seeds", "1"}, &tab); err != nil {
		t.Fatalf("compare on a nested weight tree: %v", err)
	}
	out := tab.String()
	for _, s := range []string{"best static configuration", "\nrender ", "\nscan ", "\nall ",
		"sidecar switches in these runs:", "safety.allow_node_label_changes: off (default)", "node_types: on"} {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q:\n%s", s, out)
		}
	}
	t.Log(out)
}

// On an unlabelled cluster the table says that label changes were off and
// that with them on the figures may differ; -o json carries the switches.
func TestCompareSwitchesUnlabelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flat.yaml")
	flat := strings.NewReplacer("labels:\n  - {name: gpu, exclusive: false}\n", "", ", label: gpu", "",
		"  yarn.scheduler.capacity.root.accessible-node-labels: \"*\"\n", "").Replace(handScenario)
	var kept []string
	for _, l := range strings.Split(flat, "\n") {
		if !strings.Contains(l, "accessible-node-labels") {
			kept = append(kept, l)
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := runCompare([]string{"--scenario", path, "--seeds", "1", "-o", "json"}, &js); err != nil {
		t.Fatalf("compare: %v", err)
	}
	var got experiment.ComparisonTable
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	var labels *experiment.Switch
	for i, s := range got.Switches {
		if s.Name == "safety.allow_node_label_changes" {
			labels = &got.Switches[i]
		}
	}
	if labels == nil || labels.On || !strings.Contains(labels.Note, "no node labels") {
		t.Errorf("switches %+v: want allow_node_label_changes off with a note on the unlabelled cluster", got.Switches)
	}
}
