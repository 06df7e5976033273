package report

import (
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
)

// Metrics are the sidecar's Prometheus metrics, registered on a registry
// the caller owns (no default-registry globals). Per-queue, per-class and
// per-partition values come from a Collector over the latest Status, so
// queues and classes that vanish leave /metrics too; counters never carry
// app ids (cardinality; USER-ASKS "Cardinality").
type Metrics struct {
	board *sidecar.StatusBoard

	planResults    *prometheus.CounterVec
	observeSeconds *prometheus.HistogramVec
	observeErrors  *prometheus.CounterVec
	cycles         prometheus.Counter

	sumPS, minPS, boundPS, jobPS, rate, rateSamples, queueCap, queueUsed, deadlineJobs, pMeetMin, mutations *prometheus.Desc

	preemptionOn, preemptionLost *prometheus.Desc
	shields, shieldAge           *prometheus.Desc
	jobViews                     *prometheus.Desc
	unreadableJobs               *prometheus.Desc
}

// NewMetrics registers the sidecar's metrics on reg.
func NewMetrics(reg prometheus.Registerer, board *sidecar.StatusBoard) (*Metrics, error) {
	const ns = "yarn_sidecar"
	m := &Metrics{
		board: board,
		planResults: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "plan", Name: "attempts_total",
			Help: "Scheduler-configuration plans the sidecar tried to apply, by outcome (applied, dry-run, rejected, rolled-back, version-moved, refused, failed)."}, []string{"result"}),
		observeSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Subsystem: "observe", Name: "duration_seconds",
			Help: "Time to read the cluster state from the ResourceManager, by endpoint group.", Buckets: prometheus.ExponentialBuckets(0.01, 2, 12)}, []string{"endpoint"}),
		observeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "observe", Name: "errors_total",
			Help: "Failed reads of the cluster state, by endpoint group."}, []string{"endpoint"}),
		cycles: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "cycles_total", Help: "Control cycles run."}),

		sumPS:        prometheus.NewDesc(ns+"_progress_share_all_jobs", "Sum of the progress shares of running jobs (Lee eq. 4.1); below 1 means a better assignment exists.", nil, nil),
		minPS:        prometheus.NewDesc(ns+"_progress_share_min", "Smallest progress share of any running job.", nil, nil),
		boundPS:      prometheus.NewDesc(ns+"_progress_share_bound", "Upper bound of the progress-share sum for the current jobs (each slot to the job of highest normalised rate).", nil, nil),
		jobPS:        prometheus.NewDesc(ns+"_queue_progress_share", "Sum of the progress shares of a queue's running jobs, by job class.", []string{"queue", "class"}, nil),
		rate:         prometheus.NewDesc(ns+"_computing_rate_ratio", "Computing rate of a node type for a job class, relative to the class's reference type (known cells only).", []string{"class", "node_type"}, nil),
		rateSamples:  prometheus.NewDesc(ns+"_computing_rate_samples", "Task attempts behind a computing-rate cell (unknown cells included).", []string{"class", "node_type"}, nil),
		queueCap:     prometheus.NewDesc(ns+"_queue_capacity_ratio", "Configured guaranteed capacity of a queue as a share of the partition (absolute capacity).", []string{"queue", "partition"}, nil),
		queueUsed:    prometheus.NewDesc(ns+"_queue_used_ratio", "Used resources of a queue as a share of the partition, computed per partition (not from cluster metrics).", []string{"queue", "partition"}, nil),
		deadlineJobs: prometheus.NewDesc(ns+"_deadline_jobs", "Running jobs with a completion-time goal, by queue and verdict.", []string{"queue", "verdict"}, nil),
		pMeetMin:     prometheus.NewDesc(ns+"_deadline_meet_probability_min", "Lowest predicted probability of meeting its deadline among a queue's jobs.", []string{"queue"}, nil),

		preemptionOn:   prometheus.NewDesc(ns+"_preemption_enabled", "1 when the ResourceManager preempts containers (source: rm-scheduler, config, hadoop-conf or assumed-on).", []string{"source"}, nil),
		preemptionLost: prometheus.NewDesc(ns+"_preemption_predicted_lost_seconds", "Container-seconds of running work the last plan is predicted to make the RM kill.", nil, nil),
		shields:        prometheus.NewDesc(ns+"_preemption_shields", "Queues whose disable_preemption=true this sidecar set and YARN holds (the preemption shield; it covers every partition of the queue).", nil, nil),
		shieldAge:      prometheus.NewDesc(ns+"_preemption_shield_age_seconds", "How long each preemption shield has been held, from the cycle or audit record that set it.", []string{"queue"}, nil),
		jobViews: prometheus.NewDesc(ns+"_running_jobs", "Running MapReduce jobs in the last snapshot by how current their job is: fresh (read from the AM this cycle), reused (an earlier read kept) or estimated (not read: the RM's progress only; see job_budget).",
			[]string{"job_view"}, nil),
		unreadableJobs: prometheus.NewDesc(ns+"_calibration_unreadable_jobs", "Finished jobs JobHistory listed but could not serve, left out of calibration: retrying (tried again on a schedule) or given_up.",
			[]string{"state"}, nil),
		mutations: prometheus.NewDesc(ns+"_mutations_last_hour", "Scheduler-configuration mutations written in the last hour (bounded by rate.max_mutations_per_hour).", nil, nil),
	}
	for _, c := range []prometheus.Collector{m.planResults, m.observeSeconds, m.observeErrors, m.cycles, m} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	if err := reg.Register(newQueueCollector(board)); err != nil {
		return nil, err
	}
	return m, nil
}

// ObserveCycle records one cycle's counters.
func (m *Metrics) ObserveCycle(rep sidecar.CycleReport, observeTime time.Duration) {
	m.cycles.Inc()
	if rep.Plan != nil && rep.Outcome.Result != "" && rep.Outcome.Result != act.ResultNoChange {
		m.planResults.WithLabelValues(string(rep.Outcome.Result)).Inc()
	}
	m.observeSeconds.WithLabelValues("cluster").Observe(observeTime.Seconds())
	for _, e := range rep.Snapshot.Errors {
		m.observeErrors.WithLabelValues(endpointGroup(e.What)).Inc()
	}
}

// ObserveError counts a whole-observe failure.
func (m *Metrics) ObserveError() { m.observeErrors.WithLabelValues("cluster").Inc() }

// endpointGroup bounds the label: the first word of a load error's "what".
func endpointGroup(what string) string {
	for i, r := range what {
		if r == ' ' {
			return what[:i]
		}
	}
	return what
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.sumPS, m.minPS, m.boundPS, m.jobPS, m.rate, m.rateSamples, m.queueCap, m.queueUsed, m.deadlineJobs, m.pMeetMin, m.mutations, m.preemptionOn, m.preemptionLost, m.shields, m.shieldAge, m.jobViews, m.unreadableJobs} {
		ch <- d
	}
}

// Collect implements prometheus.Collector from the latest Status.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	st := m.board.Get()
	if st.Time.IsZero() {
		return
	}
	ch <- prometheus.MustNewConstMetric(m.sumPS, prometheus.GaugeValue, st.SumPS)
	ch <- prometheus.MustNewConstMetric(m.minPS, prometheus.GaugeValue, st.MinPS)
	ch <- prometheus.MustNewConstMetric(m.boundPS, prometheus.GaugeValue, st.BoundPS)
	if p := st.Preemption; p != nil {
		on := 0.0
		if p.On {
			on = 1
		}
		ch <- prometheus.MustNewConstMetric(m.preemptionOn, prometheus.GaugeValue, on, p.Source)
		ch <- prometheus.MustNewConstMetric(m.preemptionLost, prometheus.GaugeValue, p.PredictedLostSeconds)
		ch <- prometheus.MustNewConstMetric(m.shields, prometheus.GaugeValue, float64(len(p.Shielded)))
		for _, q := range p.Shielded {
			if since, ok := p.ShieldSince[q]; ok {
				ch <- prometheus.MustNewConstMetric(m.shieldAge, prometheus.GaugeValue, math.Max(0, st.Time.Sub(since).Seconds()), q)
			}
		}
	}
	ch <- prometheus.MustNewConstMetric(m.mutations, prometheus.GaugeValue, float64(st.MutationsLastHour))
	for v, n := range st.JobViews {
		ch <- prometheus.MustNewConstMetric(m.jobViews, prometheus.GaugeValue, float64(n), string(v))
	}
	retrying, gaveUp := 0, 0
	for _, u := range st.Unreadable {
		if u.GaveUp {
			gaveUp++
		} else {
			retrying++
		}
	}
	ch <- prometheus.MustNewConstMetric(m.unreadableJobs, prometheus.GaugeValue, float64(retrying), "retrying")
	ch <- prometheus.MustNewConstMetric(m.unreadableJobs, prometheus.GaugeValue, float64(gaveUp), "given_up")
	type qc struct{ q, c string }
	ps := map[qc]float64{}
	verdicts := map[[2]string]int{}
	pmin := map[string]float64{}
	for _, j := range st.Jobs {
		ps[qc{j.Queue, j.Class}] += j.PS
		if j.Deadline != nil && j.Verdict != "" {
			verdicts[[2]string{j.Queue, j.Verdict}]++
		}
		if j.PMeet != nil {
			if v, ok := pmin[j.Queue]; !ok || *j.PMeet < v {
				pmin[j.Queue] = *j.PMeet
			}
		}
	}
	for k, v := range ps {
		ch <- prometheus.MustNewConstMetric(m.jobPS, prometheus.GaugeValue, v, k.q, k.c)
	}
	for k, n := range verdicts {
		ch <- prometheus.MustNewConstMetric(m.deadlineJobs, prometheus.GaugeValue, float64(n), k[0], k[1])
	}
	for q, p := range pmin {
		ch <- prometheus.MustNewConstMetric(m.pMeetMin, prometheus.GaugeValue, p, q)
	}
	for _, r := range st.Rates {
		if r.Known {
			ch <- prometheus.MustNewConstMetric(m.rate, prometheus.GaugeValue, r.Ratio, r.Class, r.NodeType)
		}
		ch <- prometheus.MustNewConstMetric(m.rateSamples, prometheus.GaugeValue, float64(r.Samples), r.Class, r.NodeType)
	}
	for _, q := range st.Queues {
		ch <- prometheus.MustNewConstMetric(m.queueCap, prometheus.GaugeValue, q.AbsCapacity/100, q.Queue, q.Partition)
		ch <- prometheus.MustNewConstMetric(m.queueUsed, prometheus.GaugeValue, q.AbsUsed/100, q.Queue, q.Partition)
	}
}
