package decide

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// CalibrationSample follows a queue sent to calibrate (CalibrationSent)
// while it lives in the partition: Lee §4.3.1.4 runs a job on each node
// type only for its first few maps, yet the rates are learned from
// JobHistory, which has a job once it finished, so the planner kept the
// queue there for its whole first job. On shift the ml queue's first
// features jobs (399 containers of work) ran on the 160 GPU slots, no
// faster there, and waited minutes (issue 18).
type CalibrationSample struct {
	Partition string
	// Earlier are the apps that ran in the queue before it moved to
	// Partition: some of their maps ran elsewhere, so they are no sample.
	Earlier map[string]bool
	// Apps are the queue's running apps when its sample was complete
	// (their history will hold it); empty until then.
	Apps []string
}

// calibrationSamples are the followed queues, by path.
type calibrationSamples map[string]CalibrationSample

// homesSince remembers since when each leaf has lived in its partition
// (its default-node-label-expression), as first observed: an app started
// after that ran every map there.
type homesSince map[string]homeSeen

type homeSeen struct {
	Label string
	Since time.Time // zero: as the sidecar first saw it
}

// observe notes the leaves' live homes at now; a home first seen at
// start-up dates from before the sidecar (zero time). Removed queues are
// forgotten.
func (h homesSince) observe(tree *schedconf.Tree, now time.Time, first bool) {
	for path := range h {
		if _, ok := tree.ByPath[path]; !ok {
			delete(h, path)
		}
	}
	for _, q := range tree.Leaves() {
		if v, ok := h[q.Path]; ok && v.Label == q.DefaultLabelExpression {
			continue
		}
		since := now
		if first {
			since = time.Time{}
		}
		h[q.Path] = homeSeen{Label: q.DefaultLabelExpression, Since: since}
	}
}

// follow starts following the queues sent to calibrate once they live in
// the partition they were sent to, and stops following a queue whose
// sample's apps all left the running set (JobHistory has them: the
// learner measures the rates from them) or that left the partition before
// its sample was complete. Only apps started after the queue moved there
// (homes) ran every map there: the others are noted Earlier.
func (c calibrationSamples) follow(sent calibrations, tree *schedconf.Tree, snap cluster.Snapshot, homes homesSince) {
	running := map[string]cluster.App{}
	byQueue := map[string][]cluster.App{}
	for _, a := range snap.RunningApps() {
		running[a.ID] = a
		byQueue[a.Queue] = append(byQueue[a.Queue], a)
	}
	for path, smp := range c {
		_, stillSent := sent[path]
		switch {
		case len(smp.Apps) > 0 && !slices.ContainsFunc(smp.Apps, func(id string) bool { _, ok := running[id]; return ok }):
			delete(c, path)
		case len(smp.Apps) == 0 && (!stillSent || sent[path].Partition != smp.Partition):
			delete(c, path)
		}
	}
	for path, s := range sent {
		q, ok := tree.ByPath[path]
		if !ok || q.DefaultLabelExpression != s.Partition {
			continue
		}
		if smp, ok := c[path]; ok && smp.Partition == s.Partition {
			continue
		}
		earlier := map[string]bool{}
		for _, a := range byQueue[path] {
			if h, ok := homes[path]; !ok || h.Label != s.Partition || a.StartedTime.Before(h.Since) {
				earlier[a.ID] = true
			}
		}
		c[path] = CalibrationSample{Partition: s.Partition, Earlier: earlier}
	}
}

// sampled notes the queues whose sample this decision found complete.
func (c calibrationSamples) sampled(done map[string][]string) {
	for path, apps := range done {
		if smp, ok := c[path]; ok {
			smp.Apps = apps
			c[path] = smp
		}
	}
}

// calibrationSampledStep marks a queue sent to calibrate whose sample is
// in and shows no gain — every class it runs has finished MinSamples maps
// (calibrate.DefaultMinSamples, what the estimator needs per (class, node
// type)) in apps that ran only in the partition, and their median map
// time is no better than calibrationNoGain times the class's past maps
// (the running jobs' own map times, STEAMEngine's online profiling) — or
// whose sampled jobs are still running (their rates are not learned yet):
// the planner does not send it to calibrate again
// (progress.QueueDemand.Sampled), so the plan moves it where the known
// rates say, home. A sample that gains keeps the queue there until the
// rates are learned, as before: on shift, train's first job on the GPU
// nodes sent home after its first maps made train 0.47 -> 0.50x and sort
// 1.07x of stock. Runs after the demand step and before the plan.
//
// A sample is bounded, too (issue 32: calibration risks a bounded sample,
// never a whole queue's home): once an app started in the partition after
// the move (the sample is underway) and the queue's demand exceeds
// CalibrationMax containers, the queue is marked sampled the same way, so
// its later jobs go where the known rates say; the apps already there
// finish there. The planner sends only a queue within the bound, but its
// next jobs followed the home: on tuning cluster 17 the etl queue, sent to
// a 14-slot GPU partition with one container of demand, kept the home for
// 16 minutes and the jobs submitted then ran 2.48x as long as on stock.
type calibrationSampledStep struct {
	Samples    calibrationSamples
	MinSamples int
	Models     func() map[string]deadline.PhaseModel
	// CalibrationMax (containers; 0: no bound on a sample underway).
	CalibrationMax int64
}

func (calibrationSampledStep) Name() string { return "calibrationSampled" }

func (st calibrationSampledStep) Run(s *decideState) error {
	if len(st.Samples) == 0 {
		return nil
	}
	minSamples := st.MinSamples
	if minSamples <= 0 {
		minSamples = calibrate.DefaultMinSamples
	}
	var models map[string]deadline.PhaseModel
	if st.Models != nil {
		models = st.Models()
	}
	byQueue := map[string][]cluster.App{}
	for _, a := range s.Snap.RunningApps() {
		byQueue[a.Queue] = append(byQueue[a.Queue], a)
	}
	for i, q := range s.Queues {
		smp, ok := st.Samples[q.Path]
		if !ok {
			continue
		}
		if len(smp.Apps) > 0 {
			s.Queues[i].Sampled = true
			continue
		}
		if live, ok := s.Tree.ByPath[q.Path]; !ok || live.DefaultLabelExpression != smp.Partition {
			continue
		}
		// Map seconds per class of the apps that ran every map there.
		secs := map[string][]float64{}
		var apps []string
		for _, a := range byQueue[q.Path] {
			class := ""
			if s.ClassOf != nil {
				class = s.ClassOf(a)
			}
			if _, ok := secs[class]; !ok {
				secs[class] = nil
			}
			apps = append(apps, a.ID)
			if smp.Earlier[a.ID] || a.Job == nil {
				continue
			}
			secs[class] = append(secs[class], a.Job.CompletedMaps...)
		}
		underway := slices.ContainsFunc(apps, func(id string) bool { return !smp.Earlier[id] })
		if underway && st.CalibrationMax > 0 && q.Demand > st.CalibrationMax {
			markSampled(s, i, apps)
			s.Notes = append(s.Notes, fmt.Sprintf("queue %s: its calibration sample in %q is underway and the queue's demand (%d containers) is past the bound (%d): its later jobs go where the known rates say", q.Path, smp.Partition, q.Demand, st.CalibrationMax))
			continue
		}
		gain, ok := sampleGain(secs, models, minSamples)
		if !ok || gain > calibrationNoGain {
			continue
		}
		markSampled(s, i, apps)
		s.Notes = append(s.Notes, fmt.Sprintf("queue %s: its calibration sample in %q runs maps at most %.2f× as fast as its classes' past maps: not kept there for the rest of its jobs (the rates follow from their history)", q.Path, smp.Partition, gain))
	}
	return nil
}

// markSampled: queue i's sample is in (or bounded); its running apps hold
// it until their history is learned.
func markSampled(s *decideState, i int, apps []string) {
	s.Queues[i].Sampled = true
	if s.Sampled == nil {
		s.Sampled = map[string][]string{}
	}
	slices.Sort(apps)
	s.Sampled[s.Queues[i].Path] = apps
}

// sampleGain is the most any class's maps gain in the partition: the
// median of its past maps (the deadline model's map time, fitted where it
// ran so far; exp μ, Lee eq. 5.1) over the median of the sample's; false
// when a class has fewer than minSamples maps in the sample or no model.
func sampleGain(secs map[string][]float64, models map[string]deadline.PhaseModel, minSamples int) (float64, bool) {
	if len(secs) == 0 {
		return 0, false
	}
	most := 0.0
	for class, xs := range secs {
		m, ok := models[class]
		if !ok || len(xs) < minSamples {
			return 0, false
		}
		med := calibrate.Median(xs)
		if med <= 0 {
			return 0, false
		}
		most = max(most, math.Exp(m.Map.Mu)/med)
	}
	return most, true
}
