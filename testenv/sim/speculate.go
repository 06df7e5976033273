package sim

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MapReduce speculative execution, modelled simply after the AM's
// DefaultSpeculator: once a job has no map waiting for a container, every
// round (retry-after-no-speculate, 1 s) the running map whose estimated end
// is furthest beyond "now + the job's mean map time" gets one more attempt
// (at most one speculative attempt per task, and no more running at once
// than max(minimum-allowed-tasks, cap-total × maps, cap-running × running
// maps)); after a speculation the job waits retry-after-speculate (15 s).
// The first attempt to succeed wins; the others are KILLED with
// "Speculation: <winner> succeeded first!" (recorded from a real 3.3.6
// JobHistory). A stand-in: the estimate is the attempt's true end (the
// estimator extrapolates progress, which grows linearly here); reduces are
// never speculated (mapreduce.reduce.speculative is not modelled).
//
// Hadoop's default is on; the mini cluster keeps it off unless a
// scenario's mapred_site sets mapreduce.map.speculative=true, so scenarios
// written before it was modelled run as they did.

// SpeculationConf is the speculator's configuration (mapred-site).
type SpeculationConf struct {
	Maps              bool
	Interval          time.Duration // retry-after-no-speculate (1000 ms)
	AfterSpeculate    time.Duration // retry-after-speculate (15000 ms)
	CapRunning        float64       // speculative-cap-running-tasks (0.1)
	CapTotal          float64       // speculative-cap-total-tasks (0.01)
	MinimumAllowed    int           // minimum-allowed-tasks (10)
	killed            int
	killedSeconds     float64
	speculatedAttempt int
}

const specPrefix = "mapreduce.job.speculative."

// ParseSpeculationConf reads the speculator from mapred-site properties.
func ParseSpeculationConf(site map[string]string) (SpeculationConf, error) {
	sc := SpeculationConf{Interval: time.Second, AfterSpeculate: 15 * time.Second, CapRunning: 0.1, CapTotal: 0.01, MinimumAllowed: 10}
	if v, ok := site["mapreduce.map.speculative"]; ok {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return sc, fmt.Errorf("mapred_site mapreduce.map.speculative: %q is not true or false", v)
		}
		sc.Maps = b
	}
	for key, into := range map[string]*time.Duration{specPrefix + "retry-after-no-speculate": &sc.Interval, specPrefix + "retry-after-speculate": &sc.AfterSpeculate} {
		if v, ok := site[key]; ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n <= 0 {
				return sc, fmt.Errorf("mapred_site %s: %q is not a positive number of milliseconds", key, v)
			}
			*into = time.Duration(n) * time.Millisecond
		}
	}
	for key, into := range map[string]*float64{specPrefix + "speculative-cap-running-tasks": &sc.CapRunning, specPrefix + "speculative-cap-total-tasks": &sc.CapTotal} {
		if v, ok := site[key]; ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || f < 0 || f > 1 {
				return sc, fmt.Errorf("mapred_site %s: %q is not a number in [0, 1]", key, v)
			}
			*into = f
		}
	}
	if v, ok := site[specPrefix+"minimum-allowed-tasks"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return sc, fmt.Errorf("mapred_site %sminimum-allowed-tasks: %q is not a count", specPrefix, v)
		}
		sc.MinimumAllowed = n
	}
	return sc, nil
}

type speculator struct{ conf SpeculationConf }

// SpeculationStats counts the speculative attempts started, the losers
// killed and the container-seconds those losers had run.
func (c *Cluster) SpeculationStats() (started, killed int, lostSeconds float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.spec == nil {
		return 0, 0, 0
	}
	return c.spec.conf.speculatedAttempt, c.spec.conf.killed, c.spec.conf.killedSeconds
}

// speculateRound gives at most one straggling map per job a second attempt.
func (c *Cluster) speculateRound() {
	for _, a := range c.active {
		if !a.running || !a.finish.IsZero() || len(a.pendingMaps) > 0 || a.mapsDone == 0 || a.mapsDone == len(a.maps) || c.now.Before(a.nextSpeculate) {
			continue
		}
		var sum time.Duration
		n, running, speculating := 0, 0, 0
		for _, t := range a.maps {
			live := 0
			for _, at := range t.attempts {
				switch at.state {
				case "SUCCEEDED":
					sum += at.finish.Sub(at.start)
					n++
				case "RUNNING":
					live++
				}
			}
			running += live
			if live > 1 {
				speculating++
			}
		}
		if n == 0 {
			continue
		}
		capacity := max(float64(c.spec.conf.MinimumAllowed), c.spec.conf.CapTotal*float64(len(a.maps)), c.spec.conf.CapRunning*float64(running))
		if float64(speculating) >= capacity {
			continue
		}
		replacementEnd := c.now.Add(sum / time.Duration(n))
		var best *attempt
		var bestGain time.Duration
		for _, t := range a.maps {
			if t.state != "RUNNING" {
				continue
			}
			var only *attempt
			live := 0
			for _, at := range t.attempts {
				if at.state == "RUNNING" {
					only, live = at, live+1
				}
			}
			if live != 1 || only.ev == nil {
				continue
			}
			if gain := only.ev.at.Sub(replacementEnd); gain > bestGain {
				best, bestGain = only, gain
			}
		}
		if best == nil {
			continue
		}
		c.addPendingMap(a, best.task.idx)
		c.spec.conf.speculatedAttempt++
		a.nextSpeculate = c.now.Add(c.spec.conf.AfterSpeculate)
	}
}

// killLosers ends the other attempts of a task whose attempt just
// succeeded, and drops a speculative request not yet placed.
func (c *Cluster) killLosers(winner *attempt) {
	t, a := winner.task, winner.app
	if t.typ == "MAP" && a.pendingMaps[t.idx] {
		delete(a.pendingMaps, t.idx)
	}
	for _, at := range t.attempts {
		if at == winner || at.state != "RUNNING" {
			continue
		}
		if c.spec != nil {
			c.spec.conf.killed++
			c.spec.conf.killedSeconds += c.now.Sub(at.start).Seconds()
		}
		c.killAttempt(at, "Speculation: "+c.attemptID(winner)+" succeeded first!")
	}
}

// attemptID is the MapReduce attempt id, attempt_<cluster>_<app>_<m|r>_<task>_<n>.
func (c *Cluster) attemptID(at *attempt) string {
	return fmt.Sprintf("attempt_%d_%04d_%s_%06d_%d", c.clusterTS, at.app.seq, strings.ToLower(at.task.typ[:1]), at.task.idx, at.n)
}
