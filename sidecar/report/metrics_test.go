package report

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// metricsCycle is a cycle with one queue in two partitions (as
// sidecar's record_test.go builds them).
func metricsCycle(t0 time.Time, n int, gpu float64, jobs []sidecar.JobStatus, res act.Result) sidecar.CycleReport {
	return sidecar.CycleReport{Cycle: int64(n), Snapshot: cluster.Snapshot{Time: t0.Add(time.Duration(n) * 30 * time.Second), RM: "rm"},
		Decision: sidecar.Decision{Jobs: jobs, Queues: []sidecar.QueueStatus{
			{Queue: "root.crypto", Partition: "", Capacity: 50, AbsCapacity: 50, AbsUsed: 10},
			{Queue: "root.crypto", Partition: "gpu", Capacity: gpu, AbsCapacity: gpu, AbsUsed: 40}}},
		Outcome: act.Outcome{Result: res}}
}

// The per-queue metrics include the admin's guarantee and the fair share;
// running jobs are counted by how current their job is (job_budget).
func TestMetricsAdminAndFair(t *testing.T) {
	b := &sidecar.StatusBoard{}
	rep := metricsCycle(time.Unix(0, 0), 1, 25, []sidecar.JobStatus{{AppID: "a", Queue: "root.crypto", PS: 0.4, FairShare: 0.5}}, act.ResultNoChange)
	rep.Snapshot.Apps = []cluster.App{
		{ID: "a", State: cluster.AppRunning, JobView: cluster.JobFresh},
		{ID: "b", State: cluster.AppRunning, JobView: cluster.JobEstimated},
		{ID: "c", State: cluster.AppRunning, JobView: cluster.JobEstimated},
		{ID: "d", State: cluster.AppRunning}, // not MapReduce
	}
	// Jobs JobHistory could not serve: one retrying, two given up.
	rep.Unreadable = []calibrate.UnreadableJob{{JobID: "job_1_1", Tries: 1}, {JobID: "job_1_2", Tries: 5, GaveUp: true}, {JobID: "job_1_3", Tries: 5, GaveUp: true}}
	sidecar.RecordCycle(b, rep)
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg, b)
	if err != nil {
		t.Fatal(err)
	}
	_ = m
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, mt := range mf.GetMetric() {
			var labels []string
			for _, l := range mt.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			got[mf.GetName()+"{"+strings.Join(labels, ",")+"}"] = mt.GetGauge().GetValue()
		}
	}
	for k, v := range map[string]float64{
		"yarn_sidecar_queue_admin_capacity_ratio{partition=,queue=root.crypto}":    0.5,
		"yarn_sidecar_queue_admin_capacity_ratio{partition=gpu,queue=root.crypto}": 0.25,
		"yarn_sidecar_queue_fair_share{queue=root.crypto}":                         0.5,
		"yarn_sidecar_warnings{}":                                  0,
		"yarn_sidecar_running_jobs{job_view=fresh}":                1,
		"yarn_sidecar_running_jobs{job_view=estimated}":            2,
		"yarn_sidecar_calibration_unreadable_jobs{state=retrying}": 1,
		"yarn_sidecar_calibration_unreadable_jobs{state=given_up}": 2,
	} {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
}
