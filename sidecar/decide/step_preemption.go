package decide

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/calibrate"
	"github.com/yarn-sidecar/yarn-sidecar/deadline"
	"github.com/yarn-sidecar/yarn-sidecar/progress"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/schedconf"
)

// Preemption steps (issue 16). With the RM's preemption monitor on, a
// plan that lowers a busy queue's guarantee below its use while another
// queue waits makes the RM kill that queue's newest containers and throw
// their work away. These steps are pure functions over the snapshot and
// the decision: PreemptionDetect says whether preemption is on and who
// said so; PredictPreemption says which containers a set of guarantees
// would cost and how much work; PreemptionBound scales a decision's
// capacity moves so one cycle's predicted loss stays within the budget,
// unless preemption on purpose is allowed and the predicted gain outweighs
// the loss. PreemptionGuard wires them in one place.

// Where the knowledge that preemption is on came from.
const (
	PreemptionFromRM         = "rm-scheduler" // leaf queues' preemptionDisabled
	PreemptionFromConfig     = "config"       // preemption.enabled
	PreemptionFromHadoopConf = "hadoop-conf"  // yarn-site.xml monitor.enable
	PreemptionAssumed        = "assumed-on"   // nobody said: the safe side
	monitorEnableKey         = "yarn.resourcemanager.scheduler.monitor.enable"
	maxWaitBeforeKillKey     = "yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill"
	maxIgnoredKey            = "yarn.resourcemanager.monitor.capacity.preemption.max_ignored_over_capacity"
	defaultMaxIgnored        = 0.1              // ProportionalCapacityPreemptionPolicy's default
	defaultMaxWaitBeforeKill = 15 * time.Second // ProportionalCapacityPreemptionPolicy's default
	defaultPreemptionBudget  = 15 * time.Second // for a zero PreemptionConfig
	preemptionSearchSteps    = 20               // bisection steps of the bound
	epsilonMB                = 1e-6             // MB below which nothing moves
	reasonPreemptionBound    = "preemption-bound"
	reasonPreemptionPurpose  = "preemption-on-purpose"
	newestFirstNote          = "the RM kills newest containers first"
	preemptionBudgetExceeded = "waiting"
)

// PreemptionState is whether the RM preempts, per leaf, and who said so.
type PreemptionState struct {
	On     bool   `json:"on"`
	Source string `json:"source"`
	// Disabled lists leaves that opt out (disable_preemption).
	Disabled []string `json:"disabledQueues,omitempty"`
	// MaxWaitBeforeKill is how long the RM waits between selecting a
	// container and killing it (max_wait_before_kill, from yarn-site,
	// else Hadoop's 15 s): a task that ends within it loses nothing.
	MaxWaitBeforeKill time.Duration `json:"maxWaitBeforeKill"`
	// MaxIgnoredOverCapacity is the share above its guarantee a queue may
	// hold before the RM preempts it (max_ignored_over_capacity, from
	// yarn-site, else Hadoop's 0.1): what lifting a shield leaves alone.
	MaxIgnoredOverCapacity float64 `json:"maxIgnoredOverCapacity"`
}

func (s PreemptionState) disabled(q string) bool {
	for _, d := range s.Disabled {
		if d == q {
			return true
		}
	}
	return !s.On
}

// PreemptionDetect learns whether preemption is on. The RM's answer wins
// (it is what will kill containers): on when any leaf reports
// preemptionDisabled=false. RMs that do not report it fall back to the
// config file's preemption.enabled, then HADOOP_CONF_DIR's yarn-site, and
// when nobody says, preemption is assumed on.
func PreemptionDetect(snap cluster.Snapshot, configured string, yarnSite map[string]string) PreemptionState {
	st := preemptionOn(snap, configured, yarnSite)
	st.MaxWaitBeforeKill = maxWaitBeforeKill(yarnSite)
	st.MaxIgnoredOverCapacity = MaxIgnoredOverCapacity(yarnSite)
	return st
}

// rmPreempts says whether the RM preempts (PreemptionDetect with the
// guard's configuration); false without a guard.
func (g *PreemptionGuard) rmPreempts(snap cluster.Snapshot) bool {
	return g != nil && PreemptionDetect(snap, g.Config.Enabled, g.YarnSite).On
}

// maxWaitBeforeKill is yarn-site's max_wait_before_kill (ms), else the
// policy's default.
func maxWaitBeforeKill(yarnSite map[string]string) time.Duration {
	if v, err := strconv.ParseInt(strings.TrimSpace(yarnSite[maxWaitBeforeKillKey]), 10, 64); err == nil && v >= 0 {
		return time.Duration(v) * time.Millisecond
	}
	return defaultMaxWaitBeforeKill
}

// MaxIgnoredOverCapacity is yarn-site's max_ignored_over_capacity, else
// the policy's default (0.1).
func MaxIgnoredOverCapacity(yarnSite map[string]string) float64 {
	if v, err := strconv.ParseFloat(strings.TrimSpace(yarnSite[maxIgnoredKey]), 64); err == nil && v >= 0 {
		return v
	}
	return defaultMaxIgnored
}

func preemptionOn(snap cluster.Snapshot, configured string, yarnSite map[string]string) PreemptionState {
	reported, on := false, false
	var disabled []string
	for _, q := range snap.LeafQueues() {
		if q.PreemptionDisabled == nil {
			continue
		}
		reported = true
		if *q.PreemptionDisabled {
			disabled = append(disabled, q.Path)
		} else {
			on = true
		}
	}
	switch {
	case reported:
		if !on {
			disabled = nil
		}
		sort.Strings(disabled)
		return PreemptionState{On: on, Source: PreemptionFromRM, Disabled: disabled}
	case configured == "on" || configured == "off":
		return PreemptionState{On: configured == "on", Source: PreemptionFromConfig}
	}
	if v, ok := yarnSite[monitorEnableKey]; ok {
		if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil {
			return PreemptionState{On: b, Source: PreemptionFromHadoopConf}
		}
	}
	return PreemptionState{On: true, Source: PreemptionAssumed}
}

// QueueLoss is what preemption is predicted to take from one leaf in one
// partition.
type QueueLoss struct {
	Queue, Partition string
	Containers       int
	// LostSeconds is the container-seconds of work the killed containers
	// had done (it is thrown away: a killed map re-runs from the start).
	LostSeconds float64
	// AM is set when the queue holds only AM containers there: the RM
	// would kill an AM, and with it all the app's running tasks.
	AM bool
	// HeldSeconds is how long the killed containers would still have held
	// their capacity had they run to their end (their residual time; an
	// AM's is its job's remaining run): the time by which preemption hands
	// the capacity over sooner than natural termination would.
	HeldSeconds float64
}

// TaskWork is a running task's work done and left, in seconds.
type TaskWork struct{ Done, Left float64 }

// appLeft estimates an app's remaining run from its tasks' residuals:
// (maps not started × a map's time + running maps' residuals) ÷ the
// containers it holds.
func appLeft(a cluster.App, ws []TaskWork) float64 {
	if a.Job == nil || len(ws) == 0 {
		return 0
	}
	left, full := 0.0, 0.0
	for _, w := range ws {
		left += w.Left
		full = math.Max(full, w.Done+w.Left)
	}
	left += float64(max(0, a.Job.MapsTotal-a.Job.MapsCompleted-len(ws))) * full
	return left / float64(len(ws))
}

// Guarantees is a leaf's guaranteed memory (MB) per partition.
type Guarantees map[string]map[string]float64

// GuaranteesOf computes the leaves' guaranteed MB per partition from a
// configuration tree with some leaves' percentages overridden (the plan).
func GuaranteesOf(tree *schedconf.Tree, override map[string]map[string]float64, snap cluster.Snapshot) Guarantees {
	out := Guarantees{}
	for _, p := range snap.Partitions {
		total := float64(p.Total.MemoryMB)
		for _, leaf := range tree.Leaves() {
			abs := leaf.AbsCapacity[p.Name]
			if pct, ok := override[leaf.Path][p.Name]; ok && leaf.Parent != nil {
				abs = pct / 100 * leaf.Parent.AbsCapacity[p.Name]
			}
			if out[leaf.Path] == nil {
				out[leaf.Path] = map[string]float64{}
			}
			out[leaf.Path][p.Name] = abs * total
		}
	}
	return out
}

// PredictPreemption: per partition, the waiting demand is what queues
// below their guarantee still ask for, up to the guarantee; it is taken
// from the queues above theirs (preemption not disabled), in proportion to
// their excess — the outcome the policy's ideal allocation converges to,
// ignoring natural termination (which only lowers the loss: a prediction on
// the safe side). Each queue's kills are its running maps least advanced
// first (the RM kills newest containers first), at most as many as fit in
// what it uses in the partition; a map's lost work is its progress × its
// class's mean map time (workDone gives it per app). A queue that holds
// less than one task container in the partition holds AMs there: an AM
// kill is predicted, costing every running task of the queue. Stand-ins:
// the AM's own restart time is not counted, and which partition a running
// map is in is not known (the queue's running maps are the candidates).
func PredictPreemption(snap cluster.Snapshot, g Guarantees, st PreemptionState, workDone func(cluster.App) []TaskWork) []QueueLoss {
	if !st.On {
		return nil
	}
	var out []QueueLoss
	leaves := snap.LeafQueues()
	// Running apps by queue, in the snapshot's order: grouped once, not
	// listed again per partition and leaf (partitions × leaves × apps).
	byQueue := map[string][]cluster.App{}
	for _, a := range snap.RunningApps() {
		byQueue[a.Queue] = append(byQueue[a.Queue], a)
	}
	for _, p := range snap.Partitions {
		demand, excess := 0.0, map[string]float64{}
		sumExcess := 0.0
		for _, q := range leaves {
			c := q.ByPartition[p.Name]
			used, guar := float64(c.Used.MemoryMB), g[q.Path][p.Name]
			if used < guar {
				demand += math.Min(float64(c.Pending.MemoryMB), guar-used)
			}
			if used > guar && !st.disabled(q.Path) {
				excess[q.Path] = used - guar
				sumExcess += used - guar
			}
		}
		if demand <= epsilonMB || sumExcess <= epsilonMB {
			continue
		}
		share := math.Min(1, demand/sumExcess)
		for _, q := range leaves {
			take := excess[q.Path] * share
			if take <= epsilonMB {
				continue
			}
			var work []TaskWork
			amLeft := 0.0
			size := 0.0
			for _, a := range byQueue[q.Path] {
				ws := workDone(a)
				work = append(work, ws...)
				amLeft = math.Max(amLeft, appLeft(a, ws))
				if a.Job != nil && a.Job.ContainerSize.MemoryMB > 0 {
					size = float64(a.Job.ContainerSize.MemoryMB)
				}
			}
			if size == 0 {
				size = 1024 // the RM's minimum allocation, a lower bound on a container
			}
			sort.Slice(work, func(i, j int) bool { return work[i].Done < work[j].Done })
			kills := int(math.Ceil(take/size - 1e-9))
			ql := QueueLoss{Queue: q.Path, Partition: p.Name, Containers: kills}
			if used := float64(q.ByPartition[p.Name].Used.MemoryMB); used < size {
				// What the queue holds there is smaller than one task
				// container: AM containers. The RM preempts AMs last, but
				// it does when nothing else is left; an AM's kill ends the
				// app attempt and every running task of the app with it.
				ql.AM = true
				ql.Containers = 1 + len(work)
				for _, w := range work {
					ql.LostSeconds += w.Done
				}
				ql.HeldSeconds = amLeft // an AM holds its container to the job's end
				out = append(out, ql)
				continue
			}
			if most := int(float64(q.ByPartition[p.Name].Used.MemoryMB) / size); kills > most {
				kills = most // no more task containers there than that
				ql.Containers = kills
			}
			ql.Containers, ql.LostSeconds, ql.HeldSeconds = killLoss(work, kills, st.MaxWaitBeforeKill.Seconds())
			out = append(out, ql)
		}
	}
	return out
}

// killLoss is what selecting the first `selected` of work (least advanced
// first, as the RM selects) costs once max_wait_before_kill is counted:
// the RM kills a selected container only after maxWait seconds, so a task
// whose known residual is within it ends on its own and loses nothing
// (its capacity still goes to the waiting queue, as natural termination
// does). The others are killed, losing their work done, and hand their
// capacity over Left − maxWait sooner than their natural end. A residual
// of 0 means unknown (no model, or a map past its mean) and is counted as
// killed: the safe side. Selections beyond the known tasks count as kills
// of nothing known (no work lost).
func killLoss(work []TaskWork, selected int, maxWait float64) (killed int, lost, held float64) {
	killed = selected
	for i := 0; i < selected && i < len(work); i++ {
		w := work[i]
		if w.Left > 0 && w.Left <= maxWait {
			killed--
			continue
		}
		lost += w.Done
		held += math.Max(0, w.Left-maxWait)
	}
	return killed, lost, held
}

// TotalLoss sums containers and lost seconds.
func TotalLoss(ls []QueueLoss) (containers int, seconds float64) {
	for _, l := range ls {
		containers += l.Containers
		seconds += l.LostSeconds
	}
	return containers, seconds
}

// PreemptionStatus is what the guard saw and did this cycle (status page,
// metrics).
type PreemptionStatus struct {
	PreemptionState
	// PredictedContainers and PredictedLostSeconds are what the decision's
	// move (after this bound, before BuildPlan's step limit and
	// hysteresis, which only make it smaller) adds to what the live
	// configuration already costs.
	PredictedContainers  int     `json:"predictedContainers"`
	PredictedLostSeconds float64 `json:"predictedLostSeconds"`
	BudgetSeconds        float64 `json:"budgetSeconds"`
	// Scale is the share of the decision's capacity moves kept (1 = all).
	Scale     float64 `json:"scale"`
	OnPurpose bool    `json:"onPurpose,omitempty"`
	Reason    string  `json:"reason,omitempty"`
	// Shielded are the leaves whose disable_preemption=true this sidecar
	// set and the live conf held at the cycle's start
	// (preemptionShieldStep; re-learnt from the audit log at a restart).
	Shielded []string `json:"shieldedQueues,omitempty"`
	// ShieldSince is when each of those shields was set (the audit
	// record's time after a restart): status and metrics give their age.
	ShieldSince map[string]time.Time `json:"shieldSince,omitempty"`
}

// PreemptionGuard bounds what a decision costs in preempted work.
type PreemptionGuard struct {
	Config PreemptionConfig
	// YarnSite is HADOOP_CONF_DIR's yarn-site.xml (may be nil).
	YarnSite map[string]string
	ClassKey calibrate.ClassKey
	// Models give the mean map time per class (nil: upper bound used).
	Models func() map[string]deadline.PhaseModel
	// Slot is the planning slot (for the gain of preemption on purpose);
	// Sizer, when set, reads it from the cluster instead.
	Slot  cluster.Resource
	Sizer *SlotSizer

	// shielded are the leaves whose disable_preemption this sidecar set
	// (preemptionShieldStep; AdoptShields after a restart).
	shielded map[string]time.Time
}

// Guard is the step: it reads the live capacities, predicts the decision's
// marginal preemption loss, and scales the decision's capacity targets so
// the loss stays within max_lost_work_per_cycle — or, with on_purpose,
// keeps the whole move when the predicted gain outweighs the loss.
func (g *PreemptionGuard) Guard(snap cluster.Snapshot, live schedconf.Conf, dec *Decision) *PreemptionStatus {
	st := PreemptionDetect(snap, g.Config.Enabled, g.YarnSite)
	budget := g.Config.MaxLostWorkPerCycle
	if budget == 0 {
		budget = defaultPreemptionBudget
	}
	out := &PreemptionStatus{PreemptionState: st, BudgetSeconds: budget.Seconds(), Scale: 1}
	if !st.On || len(dec.Targets) == 0 {
		return out
	}
	tree, err := schedconf.ParseTree(live)
	if err != nil {
		out.Reason = "live configuration unreadable: " + err.Error()
		return out
	}
	work := g.workDone(snap)
	current := map[string]map[string]float64{}
	for path, t := range dec.Targets {
		q := tree.ByPath[path]
		if q == nil {
			continue
		}
		current[path] = map[string]float64{}
		for p := range t.Capacity {
			current[path][p] = plan.PercentOf(q, p)
		}
	}
	at := func(s float64) map[string]map[string]float64 {
		m := map[string]map[string]float64{}
		for path, t := range dec.Targets {
			m[path] = map[string]float64{}
			for p, want := range t.Capacity {
				cur := current[path][p]
				m[path][p] = cur + s*(want-cur)
			}
		}
		return m
	}
	base := PredictPreemption(snap, GuaranteesOf(tree, nil, snap), st, work)
	baseKills, baseLost := TotalLoss(base)
	baseHeld := heldSeconds(base)
	marginal := func(s float64) (int, float64) {
		ls := PredictPreemption(snap, GuaranteesOf(tree, at(s), snap), st, work)
		k, l := TotalLoss(ls)
		return k - baseKills, l - baseLost
	}
	fullKills, fullLost := marginal(1)
	fullHeld := heldSeconds(PredictPreemption(snap, GuaranteesOf(tree, at(1), snap), st, work)) - baseHeld
	out.PredictedContainers, out.PredictedLostSeconds = fullKills, fullLost
	if fullLost <= budget.Seconds()+1e-9 {
		return out
	}
	if g.Config.OnPurpose {
		gain, horizon := g.gain(snap, dec, fullHeld/math.Max(1, float64(fullKills)))
		if gain >= g.Config.GainMargin*fullLost {
			out.OnPurpose = true
			out.Reason = fmt.Sprintf("preemption on purpose: the RM is predicted to kill %d containers (%.0f container-s of work) to hand their capacity %.0f s sooner than their natural end to jobs that gain ΔΣPS=%.3f: about %.0f slot-seconds (≥ %.1f× the loss)",
				fullKills, fullLost, horizon.Seconds(), gainPS(dec), gain, g.Config.GainMargin)
			g.annotate(dec, current, reasonPreemptionPurpose, out.Reason)
			return out
		}
	}
	lo, hi := 0.0, 1.0
	for i := 0; i < preemptionSearchSteps; i++ {
		mid := (lo + hi) / 2
		if _, l := marginal(mid); l <= budget.Seconds() {
			lo = mid
		} else {
			hi = mid
		}
	}
	out.Scale = lo
	out.PredictedContainers, out.PredictedLostSeconds = marginal(lo)
	scaled := at(lo)
	for path, t := range dec.Targets {
		nt := t
		nt.Capacity = scaled[path]
		dec.Targets[path] = nt
	}
	out.Reason = fmt.Sprintf("preemption is on (%s): the whole move would make the RM kill %d containers (%.0f container-s of work, %s); %.0f%% of it is taken this cycle to stay within max_lost_work_per_cycle=%s",
		st.Source, fullKills, fullLost, newestFirstNote, 100*lo, budget)
	if lo == 0 {
		out.Reason = fmt.Sprintf("preemption is on (%s): %s: even the least-advanced container the move would cost has done more than max_lost_work_per_cycle=%s of work; the move waits for a cheaper cycle",
			st.Source, preemptionBudgetExceeded, budget)
	}
	g.annotate(dec, current, reasonPreemptionBound, out.Reason)
	return out
}

// annotate adds the reason to the targets of queues whose guarantee falls.
func (g *PreemptionGuard) annotate(dec *Decision, current map[string]map[string]float64, tag, reason string) {
	for path, t := range dec.Targets {
		for p, want := range t.Capacity {
			if want < current[path][p] {
				nt := t
				if nt.Reason != "" {
					nt.Reason += "; "
				}
				nt.Reason += reason
				dec.Targets[path] = nt
				break
			}
		}
	}
	dec.Notes = append(dec.Notes, tag+": "+reason)
}

// workDone gives, per running app, each running map's work done and left
// in seconds: progress × and (1 − progress) × the class's mean map time;
// with no model, done is the job's elapsed time (an upper bound: no map ran
// longer than its job) and left is 0 (no gain is claimed without a model).
func (g *PreemptionGuard) workDone(snap cluster.Snapshot) func(cluster.App) []TaskWork {
	var models map[string]deadline.PhaseModel
	if g.Models != nil {
		models = g.Models()
	}
	return func(a cluster.App) []TaskWork {
		if a.Job == nil {
			return unreadWork(a, snap.Time)
		}
		class := g.ClassKey.ClassOf(a)
		mean := 0.0
		if m, ok := models[class]; ok {
			mean = m.Map.Mean()
		}
		elapsed := snap.Time.Sub(a.Job.StartTime).Seconds()
		// A job kept from an earlier read (over the cycle's AM budget):
		// its maps still running have each done up to its age more.
		age := a.JobAge(snap.Time).Seconds()
		out := make([]TaskWork, 0, len(a.Job.RunningMaps))
		for _, p := range a.Job.RunningMaps {
			w := TaskWork{Done: math.Max(0, elapsed)}
			if mean > 0 {
				w = TaskWork{Done: math.Max(0, math.Min(elapsed, p*mean+age)), Left: math.Max(0, (1-p)*mean-age)}
			}
			out = append(out, w)
		}
		return out
	}
}

// unreadWork is a running MapReduce app's work when its job was not read
// (cluster.JobEstimated: over the cycle's AM budget): every container but
// the AM is taken as a task that has run since the app started and has
// nothing left — the upper bound on work a kill loses that workDone uses
// without a model, so an unread app never makes preemption look cheap.
// Apps that are not MapReduce (no job to read) have no tasks here, as
// before.
func unreadWork(a cluster.App, now time.Time) []TaskWork {
	if a.JobView != cluster.JobEstimated || a.RunningContainers <= 1 {
		return nil
	}
	out := make([]TaskWork, a.RunningContainers-1)
	for i := range out {
		out[i] = TaskWork{Done: math.Max(0, now.Sub(a.StartedTime).Seconds())}
	}
	return out
}

func gainPS(dec *Decision) float64 {
	return math.Max(0, dec.Predicted["sum_ps"]-dec.SumPS)
}

// gain is what preemption buys: the decision's ΣPS gain, in slots (ΔΣPS ×
// the cluster's slots), for as long as the killed containers would
// otherwise still have held their capacity (sooner is all preemption
// gives: natural termination hands it over at their end anyway), capped
// by the shortest remaining run of the jobs in the queues it gives
// capacity to (maps left ÷ containers held × mean map time).
func (g *PreemptionGuard) gain(snap cluster.Snapshot, dec *Decision, sooner float64) (float64, time.Duration) {
	d := gainPS(dec)
	if d <= 0 {
		return 0, 0
	}
	slot := SlotFor(g.Sizer, g.Slot, snap)
	slots := int64(0)
	for _, p := range snap.Partitions {
		slots += p.Total.Fits(slot)
	}
	var models map[string]deadline.PhaseModel
	if g.Models != nil {
		models = g.Models()
	}
	gaining := map[string]bool{}
	queueOf := snap.QueueIndex()
	for path, t := range dec.Targets {
		if q, ok := queueOf(path); ok {
			for p, want := range t.Capacity {
				if want > q.ByPartition[p].Capacity+epsilonMB {
					gaining[path] = true
				}
			}
		}
	}
	horizon := time.Duration(math.MaxInt64)
	for _, a := range snap.RunningApps() {
		if !gaining[a.Queue] || a.Job == nil {
			continue
		}
		m, ok := models[g.ClassKey.ClassOf(a)]
		if !ok {
			continue
		}
		left := float64(a.Job.MapsTotal - a.Job.MapsCompleted - len(a.Job.RunningMaps))
		for _, p := range a.Job.RunningMaps {
			left += 1 - p
		}
		held := math.Max(1, float64(a.RunningContainers-1))
		if t := time.Duration(left / held * m.Map.Mean() * float64(time.Second)); t < horizon {
			horizon = t
		}
	}
	if horizon == time.Duration(math.MaxInt64) {
		return 0, 0
	}
	if s := time.Duration(sooner * float64(time.Second)); s < horizon {
		horizon = s
	}
	return d * float64(slots) * horizon.Seconds(), horizon
}

// Rules adapts the safety floor for preemption on purpose: the floor keeps
// a queue one container's worth in every partition it holds capacity in
// (YARN-11073), which also pins a queue's guarantee in a partition it only
// borrows from — so a slower job keeps a slot there that Lee's Algorithm 2
// would hand to a faster one. When this cycle's move is preemption on
// purpose (its gain outweighed its loss), a queue's floor applies only in
// its home partition (its default-node-label-expression); elsewhere its
// guarantee may go to zero and the RM's preemption moves its borrowed
// containers.
func (g *PreemptionGuard) Rules(r plan.SafetyRules, snap cluster.Snapshot, st PreemptionStatus) plan.SafetyRules {
	return onPurposeRules(r, snap, st)
}

// onPurposeRules is Rules; it needs nothing of the guard.
func onPurposeRules(r plan.SafetyRules, snap cluster.Snapshot, st PreemptionStatus) plan.SafetyRules {
	if !st.OnPurpose || r.FloorPercent == nil {
		return r
	}
	floor := r.FloorPercent
	queueOf := snap.QueueIndex()
	r.FloorPercent = func(queue, partition string) float64 {
		q, ok := queueOf(queue)
		if ok && !strings.EqualFold(strings.TrimSpace(q.DefaultLabelExpression), partition) {
			return 0
		}
		return floor(queue, partition)
	}
	return r
}

func heldSeconds(ls []QueueLoss) float64 {
	h := 0.0
	for _, l := range ls {
		h += l.HeldSeconds
	}
	return h
}

// preemptionStep is the guard as a step of the decision, after the
// guarantee bands: it bounds the move that will actually be written, and
// it only scales targets toward the live values (a convex combination of
// two in-band values), so the bands still hold. It needs the ΣPS of what
// runs now for the gain of preemption on purpose (eq. 4.1, the same
// figure the status reports).
type preemptionStep struct{ Guard *PreemptionGuard }

func (preemptionStep) Name() string { return "preemption" }

func (st preemptionStep) Run(s *decideState) error {
	if st.Guard == nil {
		return nil
	}
	now := progress.Compute(progress.Input{Snap: s.Snap, NodeType: s.Types, ClassOf: s.ClassOf, Rates: s.Rates, Slot: s.Slot})
	dec := Decision{Targets: s.Targets, Notes: s.Notes, SumPS: now.Sum, Predicted: map[string]float64{"sum_ps": s.Plan.SumPS}}
	s.Preemption = st.Guard.Guard(s.Snap, s.Live, &dec)
	s.Targets, s.Notes = dec.Targets, dec.Notes
	return nil
}

// PreemptionRules is Rules for a decision's preemption status (nil: no
// guard, the rules as they are).
func PreemptionRules(r plan.SafetyRules, snap cluster.Snapshot, st *PreemptionStatus) plan.SafetyRules {
	if st == nil {
		return r
	}
	return onPurposeRules(r, snap, *st)
}
