// Package spark is the sidecar's client for Spark's monitoring REST API
// (/api/v1): a running Spark-on-YARN application's driver UI behind the
// ResourceManager's web proxy (/proxy/<appId>/api/v1/applications/<appId>/...)
// and a finished one's History Server (spark.yarn.historyServer.address,
// port 18080). It reads applications, jobs, executors, stages, stage
// attempts with their tasks, task lists and task summaries into typed
// views, decoding the list answers (executors, stages, tasks) element by
// element from the response stream as the yarn package reads the
// MapReduce AM. Calibration (issue 36) reads successful tasks'
// executorRunTime per executor host from it.
//
// The dialect is that of testdata/history-server/, Spark's own recorded
// answers (see ../../shared/spark-rest/README.md when writing to this
// package): dates are "2015-05-06T13:03:06.494GMT" strings, run and
// deserialize times are milliseconds but CPU times and shuffle write times
// nanoseconds (and 0 in Spark 1.x logs: not recorded), ids of executors
// are strings and maps are keyed by strings, a single-attempt app has no
// attemptId key, many fields are present only sometimes and newer Spark
// versions add fields (unknown keys are ignored).
package spark
