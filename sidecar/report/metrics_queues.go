package report

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
)

// queueCollector exports what the report's header and queue table show
// beyond the per-cycle metrics: the admin's guarantee next to the one in
// force (yarn_sidecar_queue_capacity_ratio), each queue's fair share of PS
// next to its jobs' PS, and the header's warnings.
type queueCollector struct {
	board                     *sidecar.StatusBoard
	adminCap, fairPS, warning *prometheus.Desc
}

func newQueueCollector(board *sidecar.StatusBoard) *queueCollector {
	const ns = "yarn_sidecar"
	return &queueCollector{board: board,
		adminCap: prometheus.NewDesc(ns+"_queue_admin_capacity_ratio", "Guaranteed capacity the admin configured for a queue (share of its parent; the first value the sidecar saw), to compare with what the sidecar set.", []string{"queue", "partition"}, nil),
		fairPS:   prometheus.NewDesc(ns+"_queue_fair_share", "Fair share of progress share of a queue's running jobs (compare with yarn_sidecar_queue_progress_share).", []string{"queue"}, nil),
		warning:  prometheus.NewDesc(ns+"_warnings", "Warnings of the last cycle (unreadable snapshot parts, decision notes, pinned queues, queues at a band's edge).", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.adminCap
	ch <- c.fairPS
	ch <- c.warning
}

// Collect implements prometheus.Collector from the latest Status.
func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.board.Get()
	if st.Time.IsZero() {
		return
	}
	fair := map[string]float64{}
	for _, j := range st.Jobs {
		fair[j.Queue] += j.FairShare
	}
	for q, f := range fair {
		ch <- prometheus.MustNewConstMetric(c.fairPS, prometheus.GaugeValue, f, q)
	}
	for _, q := range st.Queues {
		if q.AdminCapacity != nil {
			ch <- prometheus.MustNewConstMetric(c.adminCap, prometheus.GaugeValue, *q.AdminCapacity/100, q.Queue, q.Partition)
		}
	}
	ch <- prometheus.MustNewConstMetric(c.warning, prometheus.GaugeValue, float64(len(st.Warnings)))
}
