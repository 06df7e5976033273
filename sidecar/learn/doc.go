// Package learn is the sidecar's calibration side: the learners that read
// finished work and keep the computing-rate history (calibrate.Store)
// current — MapReduce jobs from the JobHistory server (learn.go, or in
// memory for read-only commands, learn_readonly.go), Spark stages
// (learn_spark.go, issue 26), jobs whose history cannot be read
// (learn_unreadable.go, kept and retried, never invented), prediction
// residuals for the deadline model (learn_residuals.go), task-time models
// (models.go) and node types whose hosts run a class at two speeds
// (typesplits.go).
//
// Imports: calibrate, deadline, sparkobs and the cluster snapshot types;
// it reads YARN through the HistorySource interface the daemon passes in.
// It must not import the rest of the sidecar (sidecar, sidecar/act,
// sidecar/report), the YARN client or its write paths: learning never
// changes the cluster (sidecar/rooms_test.go checks it).
package learn
