package calibrate

import (
	"math"
	"sort"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// Sample is one successful, non-speculative map attempt.
type Sample struct {
	AttemptID string        `json:"attempt"`
	JobID     string        `json:"job"`
	Class     string        `json:"class"`
	NodeType  string        `json:"nodeType"`
	Finish    time.Time     `json:"finish"`
	Elapsed   time.Duration `json:"elapsed"`
	Bytes     int64         `json:"bytes"`
	// Type is MAP (or empty, for histories written before reduces were
	// kept) or REDUCE; reduces feed the deadline models, not the CR table.
	Type      string        `json:"type,omitempty"`
	Shuffle   time.Duration `json:"shuffle,omitempty"`
	FirstWave bool          `json:"firstWave,omitempty"`
	// JobMaps and JobElapsed describe the whole run (for size regression).
	JobMaps    int           `json:"jobMaps,omitempty"`
	JobElapsed time.Duration `json:"jobElapsed,omitempty"`
	// CPU is the attempt's CPU_MILLISECONDS and Locality where it read
	// from (NODE_LOCAL, RACK_LOCAL, OFF_SWITCH; "" unknown): together with
	// Bytes they give the read bandwidth by locality (bandwidth.go).
	// Histories written before they were kept have neither.
	CPU      time.Duration `json:"cpu,omitempty"`
	Locality string        `json:"locality,omitempty"`
	// Host is the node the attempt ran on (its host name): splits.go
	// compares hosts within a node type. Histories written before it was
	// kept have none.
	Host string `json:"host,omitempty"`
	// Queue and JobStart are the job's queue and start (submission) time
	// as the RM listed them: with JobMaps they describe the workload the
	// replay plays back (jobs.go). Histories written before they were kept
	// have neither.
	Queue    string    `json:"queue,omitempty"`
	JobStart time.Time `json:"jobStart,omitempty"`
}

// IsMap reports whether the sample is a map attempt.
func (s Sample) IsMap() bool { return s.Type == "" || s.Type == string(cluster.TaskMap) }

// rate is bytes/s when the split size is known, else 1/duration.
func (s Sample) rate() float64 {
	sec := s.Elapsed.Seconds()
	if sec <= 0 {
		return 0
	}
	if s.Bytes > 0 {
		return float64(s.Bytes) / sec
	}
	return 1 / sec
}

// SamplesFromApp turns an app's finished map attempts into samples.
func SamplesFromApp(a cluster.App, class string, types map[string]string) []Sample {
	if a.Job == nil {
		return nil
	}
	var out []Sample
	var lastMap time.Time
	maps := 0
	for _, at := range a.Job.Attempts {
		if at.Type == cluster.TaskMap && at.Succeeded() {
			maps++
			if at.FinishTime.After(lastMap) {
				lastMap = at.FinishTime
			}
		}
	}
	// The job's own map count: the attempts read may be a sample of its
	// tasks (yarn.Config.HistoryTasksPerJob), and the size regression needs
	// the whole job's.
	if a.Job.MapsTotal > 0 {
		maps = a.Job.MapsTotal
	}
	jobElapsed := a.FinishedTime.Sub(a.StartedTime)
	for _, at := range a.Job.Attempts {
		// Only the task's one SUCCEEDED attempt is a sample, whatever its
		// number: a KILLED attempt (preempted: "Container preempted by
		// scheduler"; a speculative loser: "Speculation: ... succeeded
		// first!") ran for a time that says nothing about the node's speed,
		// and the winner of a speculation or the re-run after a preemption
		// (attempt _1, _2, ...) is as good a sample as a first attempt.
		if !at.Succeeded() {
			continue
		}
		t := types[at.NodeID]
		if t == "" {
			t = types[hostOf(at.NodeHTTPAddress)]
		}
		if t == "" {
			continue
		}
		s := Sample{AttemptID: at.ID, JobID: a.Job.ID, Class: class, NodeType: t, Finish: at.FinishTime,
			Elapsed: at.Elapsed, Bytes: at.HDFSBytesRead, Type: string(at.Type), JobMaps: maps, JobElapsed: jobElapsed, CPU: at.CPUTime,
			Host: hostOf(at.NodeHTTPAddress), Queue: a.Queue, JobStart: a.StartedTime}
		if s.Host == "" {
			s.Host = hostOf(at.NodeID)
		}
		if at.Type == cluster.TaskReduce {
			s.Shuffle = at.ShuffleElapsed
			s.Elapsed = at.MergeElapsed + at.ReduceElapsed
			s.FirstWave = at.StartTime.Before(lastMap)
			if s.FirstWave {
				// A first-wave reduce starts during the map phase (slow
				// start); its shuffle counts only the part after the last
				// map (ARIA's first shuffle, digest 001 §1.2), else the
				// model would wait for the maps twice.
				s.Shuffle = max(at.StartTime.Add(at.ShuffleElapsed).Sub(lastMap), 0)
			}
		}
		out = append(out, s)
	}
	return out
}

func hostOf(addr string) string {
	for i := 0; i < len(addr); i++ {
		if addr[i] == ':' {
			return addr[:i]
		}
	}
	return addr
}

// DefaultMinSamples is Options.MinSamples' default.
const DefaultMinSamples = 3

// Options tune the estimator.
type Options struct {
	// MinSamples per (class, type) before a rate is known (default
	// DefaultMinSamples).
	MinSamples int
	// HalfLifeRuns: a run's weight halves every this many newer runs of the
	// class (exponential decay across runs of a recurring job; default 5).
	HalfLifeRuns int
	// Reference node type per class; default the type with most samples.
	Reference map[string]string
}

// Rate is one cell of the CR table.
type Rate struct {
	Ratio, Low, High float64 // to the class's reference type; 90% interval
	Samples          int
	Known            bool
}

// Table is CR per class × node type.
type Table struct {
	cells     map[string]map[string]Rate
	reference map[string]string
}

// Rate returns a cell; ok is false when the class or type was never seen.
func (t *Table) Rate(class, typ string) (Rate, bool) {
	r, ok := t.cells[class][typ]
	return r, ok
}

// Ratio implements progress.Rates: the ratio of a known cell.
func (t *Table) Ratio(class, typ string) (float64, bool) {
	r, ok := t.cells[class][typ]
	return r.Ratio, ok && r.Known
}

// Reference is a class's reference node type.
func (t *Table) Reference(class string) string { return t.reference[class] }

// Classes lists the classes in the table.
func (t *Table) Classes() []string {
	out := make([]string, 0, len(t.cells))
	for c := range t.cells {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// Types lists the node types seen for a class.
func (t *Table) Types(class string) []string {
	out := make([]string, 0, len(t.cells[class]))
	for typ := range t.cells[class] {
		out = append(out, typ)
	}
	sort.Strings(out)
	return out
}

// Unknown lists the types where the class still needs Lee's calibration
// phase (at least MinSamples maps on each type).
func (t *Table) Unknown(class string, types []string) []string {
	var out []string
	for _, typ := range types {
		if r, ok := t.cells[class][typ]; !ok || !r.Known {
			out = append(out, typ)
		}
	}
	return out
}

// Estimate computes the CR table (Lee §4.3.1.4; digest 000 §1.2): per
// (class, type) the weighted median of per-attempt rates, where a run's
// weight decays by half every HalfLifeRuns newer runs of the class; rates
// are divided by the reference type's; the 90% interval comes from the
// standard errors of the mean log-rates; fewer than MinSamples samples make
// a cell unknown.
func Estimate(samples []Sample, o Options) *Table {
	if o.MinSamples <= 0 {
		o.MinSamples = DefaultMinSamples
	}
	if o.HalfLifeRuns <= 0 {
		o.HalfLifeRuns = 5
	}
	mapsOnly := samples[:0:0]
	for _, s := range samples {
		if s.IsMap() {
			mapsOnly = append(mapsOnly, s)
		}
	}
	samples = mapsOnly
	// Order the runs (jobs) that ran maps on each (class, type) cell by
	// their last finish there: a run's age is counted in newer runs on the
	// same node type, so a type the class rarely runs on (a labelled
	// partition it was sent to calibrate) keeps its measured runs' weight
	// until newer runs measure it again. Counted over all the class's runs,
	// one stray attempt on such a type outweighed the calibration's
	// hundred (hetero-100: report on gpu went from 0.99 to 1.46 with one
	// sample, and the plan moved the queue to the slower nodes).
	type cellKey struct{ class, typ string }
	jobEnd := map[cellKey]map[string]time.Time{}
	for _, s := range samples {
		k := cellKey{s.Class, s.NodeType}
		if jobEnd[k] == nil {
			jobEnd[k] = map[string]time.Time{}
		}
		if s.Finish.After(jobEnd[k][s.JobID]) {
			jobEnd[k][s.JobID] = s.Finish
		}
	}
	runsAgo := map[cellKey]map[string]int{}
	for k, jobs := range jobEnd {
		ids := make([]string, 0, len(jobs))
		for id := range jobs {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool {
			if !jobs[ids[i]].Equal(jobs[ids[j]]) {
				return jobs[ids[i]].After(jobs[ids[j]])
			}
			return ids[i] > ids[j]
		})
		runsAgo[k] = map[string]int{}
		for i, id := range ids {
			runsAgo[k][id] = i
		}
	}
	type acc struct {
		rates, weights, logs []float64
	}
	cells := map[string]map[string]*acc{}
	for _, s := range samples {
		r := s.rate()
		if r <= 0 {
			continue
		}
		if cells[s.Class] == nil {
			cells[s.Class] = map[string]*acc{}
		}
		a := cells[s.Class][s.NodeType]
		if a == nil {
			a = &acc{}
			cells[s.Class][s.NodeType] = a
		}
		w := math.Pow(0.5, float64(runsAgo[cellKey{s.Class, s.NodeType}][s.JobID])/float64(o.HalfLifeRuns))
		a.rates, a.weights, a.logs = append(a.rates, r), append(a.weights, w), append(a.logs, math.Log(r))
	}
	t := &Table{cells: map[string]map[string]Rate{}, reference: map[string]string{}}
	for class, byType := range cells {
		ref := o.Reference[class]
		if ref == "" {
			ref = o.Reference["*"] // one reference type for every class
		}
		if _, ok := byType[ref]; !ok || len(byType[ref].rates) < o.MinSamples {
			ref = ""
			for typ, a := range byType {
				if len(a.rates) >= o.MinSamples && (ref == "" || len(a.rates) > len(byType[ref].rates) ||
					len(a.rates) == len(byType[ref].rates) && typ < ref) {
					ref = typ
				}
			}
		}
		t.reference[class] = ref
		t.cells[class] = map[string]Rate{}
		var refMed, refSE float64
		if ref != "" {
			refMed = weightedMedian(byType[ref].rates, byType[ref].weights)
			refSE = stdErr(byType[ref].logs)
		}
		for typ, a := range byType {
			cell := Rate{Samples: len(a.rates)}
			if ref != "" && len(a.rates) >= o.MinSamples {
				med := weightedMedian(a.rates, a.weights)
				cell.Ratio = med / refMed
				half := 1.645 * math.Sqrt(stdErr(a.logs)*stdErr(a.logs)+refSE*refSE)
				if typ == ref {
					half = 0
				}
				cell.Low, cell.High = cell.Ratio*math.Exp(-half), cell.Ratio*math.Exp(half)
				cell.Known = true
			}
			t.cells[class][typ] = cell
		}
	}
	addFamilies(t, o.MinSamples) // families.go: Spark apps' classes from their stages
	return t
}

func weightedMedian(x, w []float64) float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool { return x[idx[i]] < x[idx[j]] })
	total := 0.0
	for _, v := range w {
		total += v
	}
	run := 0.0
	for _, i := range idx {
		run += w[i]
		if run >= total/2 {
			return x[i]
		}
	}
	return x[idx[len(idx)-1]]
}

// stdErr is the standard error of the mean of x.
func stdErr(x []float64) float64 {
	n := float64(len(x))
	if n < 2 {
		return 0
	}
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= n
	ss := 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss/(n-1)) / math.Sqrt(n)
}
