// Package report renders the sidecar's Status as one self-contained HTML
// page an admin reads at a glance, and the same state for the terminal
// (`yarn-sidecar status`):
//
//   - the state now: last cycle, mode, preemption, the RM's version, the
//     validation path, calibration coverage, warnings; when nothing runs it
//     says so instead of printing a zero progress share;
//   - per queue over time, per partition: the guarantee the admin configured
//     (dashed) and the one the sidecar set (steps), the queue's use beneath,
//     and its jobs' PS summed against its fair share (moving average over
//     SmoothWindow);
//   - what it bought: completion-time quantiles per job class against a
//     named baseline (Options.Outcomes), deadlines met / missed / at risk on
//     a timeline with each deadline marked, mutations per hour, work lost to
//     preemption when measured;
//   - why: each plan change in one sentence per queue, the raw property diff
//     behind a <details> disclosure;
//   - jobs one click down: the deadline table, completion-time CDFs and PS
//     per job, drawn when the section opens.
//
// Charts are drawn by Chart.js (vendored, MIT, assets/) inlined into the
// page, so a report file can be mailed round and opened offline. Each
// canvas records the points it drew and their range (data-points,
// data-min, data-max) and script errors land on <html data-errors>, which
// the browser tests read back.
//
// The same Status feeds the Prometheus metrics (metrics.go,
// metrics_queues.go: NewMetrics on a registry the caller owns).
//
// Imports: the sidecar's Status (sidecar), the audit's result values
// (sidecar/act) and the plan's changes (sidecar/plan), to render them. It
// must not import the learners, the YARN or HDFS clients or net/http (the
// daemon serves /metrics), and
// never calls YARN's write APIs: a report writes nothing anywhere
// (sidecar/rooms_test.go checks it).
package report
