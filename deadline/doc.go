// Package deadline answers "will this job make its deadline, and with what
// capacity?": completion-time goals from tags or per-class SLOs; Malekimajd
// et al.'s bounds T = A·h/s_M + B·h/s_R + C and their inverse (containers
// for a deadline); their (P2) capacity split across classes, solved exactly
// by a greedy; log-normal phase fits (Lee eq. 5.1) and a Monte-Carlo
// completion-time distribution (Lee ch. 5) with online progress; the
// containers a running job needs now (Polo); and the per-queue report.
// It is pure: inputs in, values out, seeded randomness.
package deadline
