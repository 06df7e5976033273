package sparkobs

import (
	"strconv"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/spark"
)

// StageClass is the calibration class of a stage of an app of class
// appClass (package comment: the stage's name, not its position).
func StageClass(appClass, stageName string) string {
	return appClass + "/" + strings.Join(strings.Fields(stageName), " ")
}

// ExecutorType is the node type a task runs at: its node's type, or
// "<type>/gpu" for an executor holding GPUs on a node that has them.
func ExecutorType(nodeType string, gpus int, nodeHasGPUs bool) string {
	if gpus > 0 && nodeHasGPUs && nodeType != "" {
		return nodeType + calibrate.GPUExecutorSuffix
	}
	return nodeType
}

// Nodes says what the RM knows of the cluster's hosts: node type
// (calibrate.Classifier's) and GPUs.
type Nodes struct {
	typeOf map[string]string
	gpus   map[string]bool
}

// NodesOf indexes nodes by host: types maps node ids or hosts to node
// types (calibrate.Classifier.Types).
func NodesOf(nodes []cluster.Node, types map[string]string) Nodes {
	n := Nodes{typeOf: map[string]string{}, gpus: map[string]bool{}}
	for _, x := range nodes {
		t := types[x.ID]
		if t == "" {
			t = types[x.Host]
		}
		n.typeOf[x.Host] = t
		n.gpus[x.Host] = x.Total.GPUs > 0
	}
	return n
}

// TypeOf is the node type of a host ("" unknown).
func (n Nodes) TypeOf(host string) string { return n.typeOf[host] }

// StageRead is one stage attempt's tasks, read once it completed.
type StageRead struct {
	AppID, AppClass string
	Stage           spark.Stage
	Tasks           []spark.Task
	// ExecutorGPUs are the GPUs of each executor (by id) of the app.
	ExecutorGPUs map[string]int
}

// Samples turns a stage's successful tasks into calibration samples: the
// task's executorRunTime (not its duration: deserialization and
// scheduler delay say nothing about the node's speed; README §3 of the
// recordings shows a task of 2234 ms with 74 ms of run) on its executor's
// node type; input bytes when it read input (the rate is then bytes/s,
// as a map's), its CPU time when recorded. Tasks on hosts of no known
// type are skipped.
func Samples(r StageRead, nodes Nodes) []calibrate.Sample {
	class := StageClass(r.AppClass, r.Stage.Name)
	var out []calibrate.Sample
	for _, t := range r.Tasks {
		if !t.Succeeded() || t.TaskMetrics == nil || t.TaskMetrics.ExecutorRunTime <= 0 {
			continue
		}
		typ := ExecutorType(nodes.TypeOf(t.Host), r.ExecutorGPUs[t.ExecutorID], nodes.gpus[t.Host])
		if typ == "" {
			continue
		}
		m := t.TaskMetrics
		s := calibrate.Sample{
			AttemptID: "spark/" + r.AppID + "/" + strconv.FormatInt(t.TaskID, 10),
			JobID:     r.AppID, Class: class, NodeType: typ,
			Finish:  t.LaunchTime.Add(spark.Millis(t.Duration)),
			Elapsed: m.RunTime(), Bytes: m.InputMetrics.BytesRead, Type: string(cluster.TaskMap),
			JobMaps: r.Stage.NumTasks, Locality: t.TaskLocality,
		}
		if cpu, ok := m.CPUTime(); ok {
			s.CPU = cpu.Round(time.Millisecond)
		}
		out = append(out, s)
	}
	return out
}
