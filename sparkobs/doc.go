// Package sparkobs observes Spark-on-YARN applications for the sidecar
// (issue 36): their stages' progress and, from their successful tasks,
// calibration samples of CR(node type, class). It reads Spark's REST API
// through yarn/spark — running apps through the RM's web proxy within a
// per-cycle request budget, finished ones from the History Server
// (backfill) — and turns what it read into calibrate.Samples, which the
// sidecar keeps in the same durable history as MapReduce's.
//
// A Spark app's stages are different kinds of work, so a sample's class
// is the app's class and the stage's name (StageClass): the name is the
// stage's call site ("count at Report.scala:41"), the same in every run of
// the same code, where a stage's position shifts when a run skips or adds
// a stage (Spark skips stages whose shuffle output is reused). A sample is
// a successful task's executorRunTime on its executor's node type — a GPU
// executor's type is "<type>/gpu" where the node has GPUs, since a task
// using GPUs runs at another speed than one using the same node's CPUs.
// Killed tasks (speculative losers: "another attempt succeeded"), failed
// and running ones are no samples; a speculative copy that succeeded is.
package sparkobs
