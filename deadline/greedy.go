package deadline

import (
	"math"
	"sort"
)

// Class is one job class of Malekimajd's (P2): γ VMs (here: containers or
// node-equivalents) per concurrently admitted job, the penalty p for each
// job rejected, and the admitted concurrency bounds.
type Class struct {
	Name      string
	Gamma, P  float64
	HLow, HUp float64
}

// Gamma is γ = (√(A/c_M) + √(B/c_R))² / (D − C), the compact form of eqs.
// 29–30 (digest 001 §2.5).
func Gamma(c Constants, cM, cR, deadlineSeconds float64) (float64, error) {
	k := deadlineSeconds - c.C
	if k <= 0 {
		return 0, ErrInfeasible
	}
	s := math.Sqrt(c.A/cM) + math.Sqrt(c.B/cR)
	return s * s / k, nil
}

// Solution is an answer to (P2).
type Solution struct {
	H         []float64 // admitted concurrency per class
	R, D      float64   // reserved and on-demand capacity used
	Objective float64   // δ·d + ρ·r − Σ p_i·h_i
}

// SolveP2 solves (P2) exactly: min δd + ρr − Σ p_i h_i s.t. Σ γ_i h_i ≤ r + d,
// r ≤ r̄, H_low ≤ h ≤ H_up. The cost of load is convex piecewise linear
// (ρ up to r̄, δ beyond), so filling classes by value density p_i/γ_i is a
// fractional knapsack (digest 001 §0 item 3, §2.7; Thm 4.3). O(n log n).
// Preconditions: 0 ≤ ρ < δ (δ may be +Inf: no bursting), γ_i > 0.
func SolveP2(cl []Class, rbar, rho, delta float64) Solution {
	h := make([]float64, len(cl))
	load := 0.0
	for i, c := range cl {
		h[i] = c.HLow
		load += c.Gamma * c.HLow
	}
	order := make([]int, len(cl))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return cl[order[a]].P/cl[order[a]].Gamma > cl[order[b]].P/cl[order[b]].Gamma })
	for _, i := range order {
		c := cl[i]
		v := c.P / c.Gamma
		room := c.Gamma * (c.HUp - c.HLow)
		if load < rbar && v > rho {
			take := math.Min(room, rbar-load)
			load += take
			room -= take
			h[i] += take / c.Gamma
		}
		if room > 0 && v > delta {
			load += room
			h[i] = c.HUp
		}
	}
	s := Solution{H: h, R: math.Min(load, rbar), D: math.Max(0, load-rbar)}
	s.Objective = objective(cl, s, rho, delta)
	return s
}

func objective(cl []Class, s Solution, rho, delta float64) float64 {
	o := rho * s.R
	if s.D > 0 {
		o += delta * s.D
	}
	for i, c := range cl {
		o -= c.P * s.H[i]
	}
	return o
}
