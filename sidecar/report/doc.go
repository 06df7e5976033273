// Package report renders the sidecar's Status as one self-contained HTML
// page: progress share per job over time, the computing-rate table as a
// heatmap, the per-queue deadline table with each job's completion-time CDF
// against its deadline, and recent plan changes with their reasons.
//
// Charts are drawn by Chart.js (vendored, MIT, assets/) inlined into the
// page, so a report file can be mailed round and opened offline.
package report
