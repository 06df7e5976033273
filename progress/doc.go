// Package progress computes progress share — PS(j) = Σ CR of j's containers /
// Σ CR of every container slot of the cluster for j (Lee, eq. 4.1) — its
// sum and upper bound, fairness measures, and the PS-fair per-partition
// capacity plan that lifts Lee's Algorithm 2 to YARN queues (digest 000
// §5.4). It is pure: a snapshot and rates in, values out.
package progress
