// Package experiment runs a mini-cluster scenario three ways — the stock
// Capacity Scheduler with the scenario's static queues, a given static
// configuration (for the best-static sweep), and the sidecar steering it in
// lock-step with the cluster's virtual clock through the same REST clients
// it uses on a real cluster — and reports job completion times and PS. The
// benchmark, the demo and the end-to-end tests share it.
package experiment

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/learn"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/rmadmin"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Result is one run of a scenario.
type Result struct {
	Scenario string
	Seed     int64
	Mode     string // stock, static, sidecar
	Jobs     []sim.JobResult
	// PS is ΣPS, min PS and the bound per cycle (sidecar runs only).
	PS []sidecar.PSPoint
	// Status is the last cycle's status (sidecar runs only).
	Status  sidecar.Status
	Applied int // mutations applied
	Cycles  int
	// Preempted counts containers the RM's preemption killed and the
	// container-seconds of work they had done; SpecKilled the speculative
	// losers and theirs (sidecar runs with preemption or speculation on).
	Preempted, SpecKilled        int
	PreemptedSecs, SpecKilledSec float64
	// PreemptionLog is every kill the RM's preemption made, in order.
	PreemptionLog []sim.PreemptionEvent
	// Makespan is from the scenario's start to the last job's end.
	Makespan time.Duration
	// Bandwidths is the read bandwidth by locality the sidecar learned
	// (runs with BlockMaps only).
	Bandwidths map[string]calibrate.ReadBandwidth
	// NameNodeCalls is, per cycle, the calls the mini NameNode answered
	// (runs with BlockMaps only).
	NameNodeCalls []int
	// Reversals are, per queue, the applied changes that undid the
	// previous change of the same property (reversals.go); ChangedQueues
	// how many queues the run changed at all (sidecar runs only).
	Reversals     map[string]int
	ChangedQueues int
	// Refreshes counts the refreshQueues the RM served (FileStore runs).
	Refreshes int
}

// ByName maps job names to completion times.
func (r Result) ByName() map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, j := range r.Jobs {
		out[j.Name] = j.Duration()
	}
	return out
}

// Limit bounds a run in virtual time.
const Limit = 48 * time.Hour

// RunStatic runs the scenario with a mutation applied at time 0 (nil: stock).
func RunStatic(scenario string, seed int64, m *schedconf.Mutation) (Result, error) {
	sc, err := sim.LoadScenario(scenario)
	if err != nil {
		return Result{}, err
	}
	return RunStaticOn(sc, seed, m)
}

// RunStaticOn is RunStatic on a given scenario (a variant, e.g. with
// preemption switched on); the result counts the RM's kills.
func RunStaticOn(sc *sim.Scenario, seed int64, m *schedconf.Mutation) (Result, error) {
	scenario := sc.Name
	c, err := sim.NewCluster(sc, seed)
	if err != nil {
		return Result{}, err
	}
	mode := "stock"
	if m != nil {
		mode = "static"
		if _, err := c.MutateConf(*m, false); err != nil {
			return Result{}, fmt.Errorf("static configuration: %w", err)
		}
	}
	if !c.RunUntilDone(Limit) {
		return Result{}, fmt.Errorf("%s seed %d (%s) did not finish in %s", scenario, seed, mode, Limit)
	}
	res := Result{Scenario: scenario, Seed: seed, Mode: mode, Jobs: c.Results()}
	res.Preempted, res.PreemptedSecs = c.PreemptionStats()
	res.PreemptionLog = c.PreemptionEvents()
	_, res.SpecKilled, res.SpecKilledSec = c.SpeculationStats()
	return res, nil
}

// SidecarOptions tune a steered run.
type SidecarOptions struct {
	// Cycle is the sidecar's interval in virtual time (default 30 s).
	Cycle time.Duration
	// WarmupSeed, when non-zero, first runs the scenario under stock
	// capacities with that seed and ingests its finished jobs: the
	// calibration history of "yesterday's run".
	WarmupSeed int64
	// Dir holds the history and audit log (default a temp dir, removed).
	Dir    string
	Config *sidecar.Config
	// Strategy, when set, replaces the config's plan.strategy.
	Strategy string
	Log      hclog.Logger
	// MCSamples is the Monte-Carlo runs per job per cycle (default 200).
	MCSamples int
	// OnCycle sees each cycle (demo, reports).
	OnCycle func(sidecar.CycleReport)
	// WarmupSteered makes the warm-up day a steered run too (its
	// calibration shares measured the GPU nodes), so today starts from the
	// history a sidecar in service for a day would have.
	WarmupSteered bool
	// history is the store path shared by a steered warm-up and today.
	history string
	// Scenario, when set, is run instead of the named scenario (a variant,
	// e.g. with preemption switched on); scenario then only names it.
	Scenario *sim.Scenario
	// CheckStepWrites makes every decision fail on a step that changes
	// what its contract does not declare (sidecar/decide/step_contracts.go); the
	// error reaches OnCycle.
	CheckStepWrites bool
	// Labels turns on safety.allow_node_label_changes: under the PS
	// strategy the sidecar lays out node-label partitions itself (issue
	// 17), under the replay strategy it lends a node (its only label
	// change, as in the daemon).
	Labels bool
	// BlockMaps serves the scenario's HDFS through the mini NameNode and
	// lets the sidecar read running jobs' block maps (issue 17).
	BlockMaps bool
	// FileStore runs the cluster on the file store with the sidecar acting
	// through capacity-scheduler.xml and refreshQueues (act.via:
	// refresh-queues), as on an Ambari or Cloudera Manager cluster.
	FileStore bool
	// MaxCycles, when positive, stops the run after that many cycles (the
	// jobs need not finish; Result.Jobs then holds those that did).
	MaxCycles int
	// SkipSteps runs the sidecar with these decide steps removed (their
	// Name(); sidecar/decide/step_skip.go): the step ablation of issue 32.
	SkipSteps map[string]bool
}

// RunSidecar runs the scenario with the sidecar steering it in lock-step:
// one control cycle, then Cycle of virtual time, until every job finished.
func RunSidecar(scenario string, seed int64, o SidecarOptions) (Result, error) {
	if o.Cycle == 0 {
		o.Cycle = 30 * time.Second
	}
	if o.MCSamples == 0 {
		o.MCSamples = 200
	}
	if o.Log == nil {
		o.Log = hclog.NewNullLogger()
	}
	dir := o.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "yarn-sidecar-experiment-")
		if err != nil {
			return Result{}, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	cfg := o.Config
	if cfg == nil {
		cfg, _ = sidecar.ParseConfig(nil)
		cfg.Mode = act.ModeApply
	}
	if o.Strategy != "" {
		c := *cfg
		c.Plan.Strategy = o.Strategy
		cfg = &c
	}
	if o.Labels && !cfg.Safety.AllowNodeLabelChanges {
		// Labels is the admin's switch, assembled as the daemon reads it:
		// the PS strategy lays out labels, the replay lends a node.
		c := *cfg
		c.Safety.AllowNodeLabelChanges = true
		cfg = &c
	}
	sc := o.Scenario
	if sc == nil {
		var err error
		if sc, err = sim.LoadScenario(scenario); err != nil {
			return Result{}, err
		}
	}
	if len(cfg.NodeTypes) == 0 {
		// What the admin writes in node_types: one rule per hardware
		// generation by host name (cpu-old and cpu-new nodes have identical
		// resources, so the default grouping could not tell them apart).
		c := *cfg
		c.NodeTypes = NodeTypeRules(sc)
		cfg = &c
	}
	historyPath := o.history
	if historyPath == "" {
		historyPath = filepath.Join(dir, fmt.Sprintf("history-%s-%d.db", filepath.Base(scenario), seed))
	}
	if o.WarmupSteered && o.WarmupSeed != 0 {
		w := o
		w.WarmupSeed, w.WarmupSteered, w.OnCycle, w.Dir, w.history = 0, false, nil, dir, historyPath
		if _, err := RunSidecar(scenario, o.WarmupSeed, w); err != nil {
			return Result{}, fmt.Errorf("steered warm-up: %w", err)
		}
		o.WarmupSeed = 0
		defer func() { _ = os.Remove(historyPath) }()
	}
	store, err := calibrate.Open(historyPath)
	if err != nil {
		return Result{}, err
	}
	if o.history == "" {
		if err := store.SetCursor(time.Time{}); err != nil { // today's jobs are new
			return Result{}, err
		}
	}
	defer store.Close()
	ctx := context.Background()
	classifier := calibrate.Classifier{}
	for _, r := range cfg.NodeTypes {
		classifier.Rules = append(classifier.Rules, calibrate.NodeTypeRule{Name: r.Name, Label: r.Label, HostPattern: r.HostPattern, MinGPUs: r.MinGPUs})
	}
	learnerFor := func(client *yarn.Client) *learn.HistoryLearner {
		return &learn.HistoryLearner{Source: client, Store: store, Classifier: classifier, ClassKey: calibrate.ClassKey(cfg.JobClass.By),
			Options: calibrate.Options{MinSamples: cfg.Calibrate.MinSamples, HalfLifeRuns: cfg.Calibrate.HalfLifeRuns, Reference: referenceOf(cfg)}, RecomputeEvery: cfg.Calibrate.RecomputeEvery}
	}

	if o.WarmupSeed != 0 {
		// The warm-up is the day before: its jobs are history by the time
		// the judged day starts (the replay strategy plays back the last
		// day's jobs by their start times).
		wsc := *sc
		wsc.Start = sc.Start.Add(-24 * time.Hour)
		w, err := sim.NewCluster(&wsc, o.WarmupSeed)
		if err != nil {
			return Result{}, err
		}
		if !w.RunUntilDone(Limit) {
			return Result{}, fmt.Errorf("warm-up run of %s did not finish", scenario)
		}
		srv := httptest.NewServer(w.Handler())
		client, err := yarn.New(yarn.Config{RMAddresses: []string{srv.URL}, JHSAddress: srv.URL})
		if err != nil {
			srv.Close()
			return Result{}, err
		}
		snap, err := client.Observe(ctx, yarn.ObserveOptions{Now: w.Now()})
		if err == nil {
			err = learnerFor(client).Learn(ctx, snap)
		}
		if err == nil && hasSpark(sc) {
			err = ingestSparkHistory(ctx, client, srv.URL, store, classifier, calibrate.ClassKey(cfg.JobClass.By))
		}
		srv.Close()
		if err != nil {
			return Result{}, fmt.Errorf("warm-up ingest: %w", err)
		}
		if err := store.SetCursor(time.Time{}); err != nil { // today's jobs are new
			return Result{}, err
		}
	}

	if o.FileStore {
		fsc := *sc
		fsc.FileStore, fsc.ConfStore = true, "file"
		sc = &fsc
	}
	c, err := sim.NewCluster(sc, seed)
	if err != nil {
		return Result{}, err
	}
	var fileWriter *act.FileRefresher
	var adminSrv interface{ Calls(string) int }
	if o.FileStore {
		confDir, err := os.MkdirTemp(dir, "conf-")
		if err != nil {
			return Result{}, err
		}
		path, err := c.UseConfDir(confDir)
		if err != nil {
			return Result{}, err
		}
		admin, err := c.StartAdmin()
		if err != nil {
			return Result{}, err
		}
		defer admin.Close()
		adminSrv = admin
		fileWriter = &act.FileRefresher{Path: path, AdminAddrs: []string{admin.Addr()}, User: "yarn-sidecar", Log: o.Log,
			Refresh: func(ctx context.Context, addr, user string) error { return rmadmin.RefreshQueues(ctx, addr, user, nil) }}
	}
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	// As the daemon does (cmd/yarn-sidecar yarnConfig): running reduces
	// with their nodes, for the deadline report.
	client, err := yarn.New(yarn.Config{RMAddresses: []string{srv.URL}, JHSAddress: srv.URL, User: "yarn-sidecar", RunningReduces: true})
	if err != nil {
		return Result{}, err
	}
	audit, err := act.OpenAuditLog(filepath.Join(dir, fmt.Sprintf("audit-%s-%d.jsonl", filepath.Base(scenario), seed)))
	if err != nil {
		return Result{}, err
	}
	defer audit.Close()
	// The daemon's AM budget for running jobs, as wire.go sets it from
	// job_budget's default.
	// As the daemon does: every configuration store (a file-store scenario
	// reads its configuration from /ws/v1/cluster/scheduler).
	api := &act.AnyStore{YARN: act.YARN{Client: client, Jobs: true, JobBudget: yarn.DefaultJobBudget}}
	if fileWriter != nil {
		api.CapacitySchedulerXML, api.Writer = fileWriter.Path, fileWriter
	}
	info, err := client.Info(ctx)
	if err != nil {
		return Result{}, err
	}
	learner := learnerFor(client)
	if err := learner.Refresh(); err != nil {
		return Result{}, err
	}
	// The planning slot as the daemon reads it (cmd/yarn-sidecar/wire.go):
	// from the running jobs' task containers; the mini cluster has no
	// yarn-site, so no scheduler minimum.
	sizer := &sidecar.SlotSizer{ClassOf: calibrate.ClassKey(cfg.JobClass.By).ClassOf}
	busy := &sidecar.BusyQueueFloor{}
	res := Result{Scenario: scenario, Seed: seed, Mode: "sidecar"}
	flips := newReversals()
	changed := map[string]bool{}
	var inputs *miniHDFS
	if o.BlockMaps || cfg.HDFS.Enabled {
		inputs, err = startMiniHDFS(c, client, cfg.HDFS, o.Log)
		if err != nil {
			return Result{}, err
		}
		defer inputs.close()
		learner.Locality = inputs.maps.AttemptLocality
	}
	// What the admin configured when the sidecar first saw each queue, in
	// memory for one run (the daemon keeps it next to the history).
	firstSeen := &sidecar.FirstSeen{}
	board := &sidecar.StatusBoard{}
	if v, err := client.RMVersion(ctx); err == nil {
		sidecar.RecordRM(board, v)
	}
	var loopLearner sidecar.Learner = learner
	if hasSpark(sc) { // as the daemon with spark.enabled
		key := calibrate.ClassKey(cfg.JobClass.By)
		if loopLearner, err = sparkLearner(client, srv.URL, learner, act.HasGoal(key.ClassOf, cfg.Deadlines.SLO)); err != nil {
			return Result{}, err
		}
	}
	loop := &sidecar.Loop{
		Observer: api,
		Learner:  loopLearner,
		// The Monte-Carlo draws are the one difference from the daemon's
		// decider: 200 per job per cycle (o.MCSamples) keep a day of cycles
		// fast; the plan steps and the guards are the daemon's.
		Decider: sidecar.NewDecider(cfg, sidecar.DeciderParts{Learner: learner, Classifier: classifier, Sizer: sizer,
			FirstSeen: firstSeen, RMVersion: info.HadoopVersion, Samples: o.MCSamples, CheckStepWrites: o.CheckStepWrites, SkipSteps: o.SkipSteps,
			// The scenario's yarn-site is what the daemon reads from
			// HADOOP_CONF_DIR (max_wait_before_kill, max_ignored_over_capacity).
			YarnSite: sc.YarnSite}),
		Applier: &act.Applier{API: api, Audit: audit, User: "yarn-sidecar", Log: o.Log, Rate: act.NewRateLimit(cfg.Rate)},
		Mode:    cfg.Mode,
		Log:     o.Log,
		Now:     c.Now,
		Rules: func(snap clusterSnapshot) plan.SafetyRules {
			return plan.SafetyRules{MaxStepPercent: cfg.Safety.MaxStepPercent, HysteresisPercent: cfg.Safety.HysteresisPercent,
				FloorPercent: floorRule(snap, sizer.Choose(snap).Slot, cfg, busy)}
		},
		OnCycle: func(rep sidecar.CycleReport) {
			sidecar.RecordCycle(board, rep)
			if inputs != nil {
				res.NameNodeCalls = append(res.NameNodeCalls, inputs.callsSinceLast())
			}
			if rep.Outcome.Result == act.ResultApplied {
				res.Applied++
				flips.observe(rep.Plan)
				if rep.Plan != nil {
					for _, ch := range rep.Plan.Changes {
						if ch.Queue != "" {
							changed[ch.Queue] = true
						}
					}
				}
			}
			res.Cycles++
			if o.OnCycle != nil {
				o.OnCycle(rep)
			}
		},
	}
	if sl, ok := loopLearner.(*learn.SparkLearner); ok { // as the daemon wires it
		loop.Decider.(*sidecar.PSDecider).Outlooks = sl.Outlooks
		loop.Decider.(*sidecar.PSDecider).SparkApps = sl.SparkApps
	}
	if cfg.Safety.AllowNodeLabelChanges {
		loop.Labels = &sidecar.LabelLayouter{Table: learner.Table, Classifier: classifier, ClassKey: calibrate.ClassKey(cfg.JobClass.By),
			Sizer: sizer, Config: cfg.Labels, FirstSeen: firstSeen}
		loop.LabelAPI = client
		if !cfg.RunsLabelLayout() {
			loop.Labels = nil // as the daemon: the replay's label changes are its lend only
		}
	}
	if inputs != nil {
		loop.BlockMaps = inputs.maps
		wireReadCost(loop, inputs.maps, learner, classifier, calibrate.ClassKey(cfg.JobClass.By))
	}
	for !c.Done() && (o.MaxCycles <= 0 || res.Cycles < o.MaxCycles) {
		if c.Now().Sub(sc.Start) > Limit {
			return Result{}, fmt.Errorf("%s seed %d (sidecar) did not finish in %s", scenario, seed, Limit)
		}
		if _, err := loop.Once(ctx); err != nil {
			o.Log.Debug("cycle", "error", err)
		}
		c.Step(o.Cycle)
	}
	res.Jobs = c.Results()
	res.Preempted, res.PreemptedSecs = c.PreemptionStats()
	res.PreemptionLog = c.PreemptionEvents()
	_, res.SpecKilled, res.SpecKilledSec = c.SpeculationStats()
	for _, j := range res.Jobs {
		if d := j.Finish.Sub(sc.Start); d > res.Makespan {
			res.Makespan = d
		}
	}
	res.Reversals, res.ChangedQueues = flips.count, len(changed)
	res.Status = board.Get()
	res.PS = res.Status.History
	if adminSrv != nil {
		res.Refreshes = adminSrv.Calls("refreshQueues")
	}
	if inputs != nil {
		res.Bandwidths = learner.Bandwidths()
	}
	return res, nil
}

// NodeTypeRules are the node_types rules an admin would write for a
// scenario: one per node type, by host name (the mini cluster names hosts
// <type>-NNNN.sim).
func NodeTypeRules(sc *sim.Scenario) []sidecar.NodeTypeRule {
	var out []sidecar.NodeTypeRule
	for _, nt := range sc.NodeTypes {
		out = append(out, sidecar.NodeTypeRule{Name: nt.Name, HostPattern: nt.Name + "-*"})
	}
	return out
}

func referenceOf(cfg *sidecar.Config) map[string]string {
	if cfg.Calibrate.ReferenceType == "" {
		return nil
	}
	return map[string]string{"*": cfg.Calibrate.ReferenceType}
}

// floorRule is the wiring's floor: one slot's worth per partition, and,
// with safety.keep_busy_queues, a busy queue's admin capacity.
func floorRule(snap clusterSnapshot, slot clusterResource, cfg *sidecar.Config, busy *sidecar.BusyQueueFloor) func(queue, partition string) float64 {
	floor := sidecar.FloorRule(snap, slot, cfg.Safety.FloorContainers)
	if !cfg.Safety.KeepBusyQueues {
		return floor
	}
	return sidecar.MaxFloor(floor, busy.Rule(snap))
}
