package sidecar

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/decide"
	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// ActConfig is how the sidecar acts where the RM's scheduler configuration
// store is the file store.
type ActConfig struct {
	// Via: "" (the default) acts through the scheduler-conf API only, so a
	// file-store RM is read, planned for and proposed to, never written;
	// "refresh-queues" writes capacity-scheduler.xml and runs refreshQueues
	// on every RM (the admin protocol), as Ambari and Cloudera Manager do.
	Via string `yaml:"via"`
	// CapacitySchedulerXML is the file to write (default
	// <hadoop_conf_dir>/capacity-scheduler.xml).
	CapacitySchedulerXML string `yaml:"capacity_scheduler_xml"`
	// AdminAddresses are the RMs' yarn.resourcemanager.admin.address
	// (host:port, every RM of an HA cluster); default from yarn-site.xml.
	AdminAddresses []string `yaml:"admin_addresses"`
	// SharedFile says capacity-scheduler.xml is the one file every RM
	// reads (shared storage). With more than one RM and no shared file the
	// sidecar refuses refresh-queues: the RMs would load different files.
	SharedFile bool `yaml:"shared_file"`
}

// ActViaRefreshQueues is ActConfig.Via's file-store writer.
const ActViaRefreshQueues = "refresh-queues"

// Config is the sidecar's configuration file (configs/sidecar.example.yaml
// documents every option). Load it with LoadConfig, which defaults then
// validates.
type Config struct {
	Mode act.Mode `yaml:"mode"`
	// Act says how apply mode writes on a file-store RM (issue 34).
	Act ActConfig `yaml:"act"`

	// Connection. Empty values are found from HADOOP_CONF_DIR.
	RM            []string      `yaml:"rm"`
	JobHistory    string        `yaml:"jobhistory"`
	Proxy         string        `yaml:"proxy"`
	User          string        `yaml:"user"`
	HadoopConfDir string        `yaml:"hadoop_conf_dir"`
	Timeout       time.Duration `yaml:"timeout"`
	// ListingBudget bounds the per-node container-listing requests of
	// one observe (one per app whose AM container names its attempt, else
	// two; 0: 200, negative: no bound). Only apps on
	// partitions that mix node types need one; the rest are placed from
	// their usage per partition (issue 19).
	ListingBudget int `yaml:"listing_budget"`
	// JobBudget bounds the requests to running MapReduce AMs of one
	// observe (two per job, three at its first read: its conf, read once
	// for its map size and input dir; one more while its reduces run and
	// one per running reduce the first time it is seen, for the node its
	// reduce phase is costed at; default 400, negative: no bound). Jobs with a
	// completion goal and jobs never read go first, then the stalest; the
	// rest keep their last read or, never read, only the RM's progress
	// (issue 19).
	JobBudget int `yaml:"job_budget"`
	// Spark reads Spark applications' REST API (config_spark.go).
	Spark SparkConfig `yaml:"spark"`
	// NodeListingMaxAge bounds how long observe reuses the node listing
	// (the biggest answer it reads) while /cluster/metrics' node counts
	// and totals are unchanged and no node labels were written (default
	// 5m; -1: re-read every cycle). Partitions' use comes from the queues
	// meanwhile (issue 19). The node labels (their exclusivity) are read
	// and reused with the listing: a label changed by someone else than
	// the sidecar is seen at most this much later.
	NodeListingMaxAge MaxAge `yaml:"node_listing_max_age"`
	// AppUsageMaxAge bounds how long observe keeps apps' use per
	// partition (their resourceInfo, most of the apps answer) from a full
	// read while it reads apps without it (default 5m; -1: read it every
	// cycle). Meanwhile changed apps' use is split by their queue's and
	// marked estimated (issue 19).
	AppUsageMaxAge MaxAge `yaml:"app_usage_max_age"`
	// HistoryTasksPerJob bounds the tasks of each type read per finished
	// job from JobHistory (0: 64, negative: all).
	HistoryTasksPerJob int `yaml:"history_tasks_per_job"`
	// CAFile verifies HTTPS endpoints (yarn.http.policy=HTTPS_ONLY).
	CAFile string `yaml:"ca_file"`
	// Kerberos, when set, authenticates with SPNEGO.
	Kerberos *KerberosConfig `yaml:"kerberos"`
	// HA, when set, runs this sidecar as one of several: only the one
	// elected through ZooKeeper writes to YARN (see sidecar/leader).
	HA *HAConfig `yaml:"ha"`

	// Interval between control cycles in `run`.
	Interval time.Duration `yaml:"interval"`
	// StateDir holds the calibration history, the audit log and the
	// admin's baseline (config_state.go): one absolute place, whatever
	// directory a command is run from. Empty: $STATE_DIRECTORY (systemd's
	// StateDirectory=), else /var/lib/yarn-sidecar as root, else
	// $XDG_STATE_HOME/yarn-sidecar (~/.local/state/yarn-sidecar).
	StateDir string `yaml:"state_dir"`
	// Store is the calibration history (bbolt file); relative to StateDir.
	Store string `yaml:"store"`
	// AuditLog is the append-only JSON-lines log of every apply attempt;
	// relative to StateDir.
	AuditLog string `yaml:"audit_log"`
	// Listen serves /metrics and /report (loopback by default).
	Listen string `yaml:"listen"`

	// Queues lists the leaf queues the sidecar may steer, with their
	// weights for PS fairness. Empty = every leaf queue, weight = its
	// current default-partition capacity.
	Queues map[string]QueueConfig `yaml:"queues"`

	// Slot overrides the planning slot, which is otherwise read from what
	// the cluster allocates (SlotSizer): the running jobs' task containers,
	// else the scheduler's minimum allocation from yarn-site.xml.
	Slot SlotConfig `yaml:"slot"`

	NodeTypes []NodeTypeRule  `yaml:"node_types"`
	JobClass  JobClassConfig  `yaml:"job_class"`
	Calibrate CalibrateConfig `yaml:"calibration"`
	Safety    SafetyConfig    `yaml:"safety"`
	Deadlines DeadlineConfig  `yaml:"deadlines"`
	Schedule  ScheduleConfig  `yaml:"schedule"`
	// Labels lays out node-label partitions (safety.allow_node_label_changes
	// lets the daemon apply them; `labels plan` shows them anyway).
	Labels LabelsConfig `yaml:"labels"`
	// HDFS is where the NameNodes are and how often to read block maps.
	HDFS HDFSConfig `yaml:"hdfs"`

	// Guarantee is the default band for every queue (config_guarantee.go);
	// Rate bounds how often the sidecar writes.
	Guarantee  GuaranteeConfig  `yaml:"guarantee"`
	Rate       act.RateConfig   `yaml:"rate"`
	Preemption PreemptionConfig `yaml:"preemption"`
	// Plan says how the configuration is chosen (step_replay.go).
	Plan PlanConfig `yaml:"plan"`
}

// PlanConfig chooses the decision's strategy.
type PlanConfig struct {
	// Strategy is "ps" (the default: the PS-fair plan, steered every
	// cycle) or "replay" (one configuration chosen by replaying the
	// history's last Window of jobs, held for Every; no class predicted
	// slower than under the admin's configuration).
	Strategy string `yaml:"strategy"`
	// Window is how much history the replay plays back (default 24h);
	// Every how long a choice is held (default 1h).
	Window time.Duration `yaml:"window"`
	Every  time.Duration `yaml:"every"`
}

// Plan strategies.
const (
	StrategyPS     = decide.StrategyPS
	StrategyReplay = decide.StrategyReplay
)

// KnownStrategy: s is a plan strategy ("" is the default, ps).
func KnownStrategy(s string) bool {
	return s == "" || s == StrategyPS || s == StrategyReplay
}

// SlotConfig is an admin's planning slot: one task container. Zero memory
// = read it from the cluster.
type SlotConfig struct {
	MemoryMB int64 `yaml:"memory_mb"`
	VCores   int64 `yaml:"vcores"`
}

// Resource is the slot as a resource (vcores 1 when unset); zero when not set.
func (s SlotConfig) Resource() cluster.Resource {
	if s.MemoryMB <= 0 {
		return cluster.Resource{}
	}
	return cluster.Resource{MemoryMB: s.MemoryMB, VCores: max(s.VCores, 1)}
}

// PreemptionConfig is the preemption block (preemption.*); the
// preemption guard reads it, so it lives with the decision (sidecar/decide).
type PreemptionConfig = decide.PreemptionConfig

// preemptionDefaults fills what the preemption block leaves unset.
func preemptionDefaults(p *PreemptionConfig) {
	if p.MaxLostWorkPerCycle == 0 {
		// A quarter of a one-minute map: cuts go through when what the RM
		// kills has barely started (a newest container), not otherwise.
		p.MaxLostWorkPerCycle = 15 * time.Second
	}
	if p.GainMargin == 0 {
		p.GainMargin = 2
	}
}

// validatePreemption adds an error per bad preemption.* field.
func validatePreemption(p PreemptionConfig, add func(path, format string, a ...any)) {
	switch p.Enabled {
	case "", "on", "off":
	default:
		add("preemption.enabled", "%q is not on or off", p.Enabled)
	}
	if p.MaxLostWorkPerCycle < 0 {
		add("preemption.max_lost_work_per_cycle", "must not be negative, got %s", p.MaxLostWorkPerCycle)
	}
	if p.GainMargin < 1 {
		add("preemption.gain_margin", "must be at least 1, got %g", p.GainMargin)
	}
}

// KerberosConfig is SPNEGO to Kerberized web endpoints: a keytab and
// principal, or a ticket cache (kinit).
type KerberosConfig struct {
	Principal string `yaml:"principal"`
	Keytab    string `yaml:"keytab"`
	CCache    string `yaml:"ccache"`
	Krb5Conf  string `yaml:"krb5_conf"`
}

// QueueConfig is one steered leaf queue.
type QueueConfig struct {
	Weight float64 `yaml:"weight"`
	// Pinned queues are observed and reported but never changed.
	Pinned bool `yaml:"pinned"`
	// Guarantee overrides the default band for this queue (leaf or parent).
	Guarantee *GuaranteeConfig `yaml:"guarantee"`
	// ExpectedLater: the queue does not exist yet (the admin is about to
	// create it); without it a queue the cluster lacks stops the start.
	ExpectedLater bool `yaml:"expected_later"`
}

// NodeTypeRule assigns a node type by label, host pattern or resources.
type NodeTypeRule struct {
	Name        string `yaml:"name"`
	Label       string `yaml:"label"`
	HostPattern string `yaml:"host_pattern"`
	MinGPUs     int64  `yaml:"min_gpus"`
	// ExpectedLater: no node matches yet (its label or hosts are about to
	// be added); without it a rule that matches nothing stops the start.
	ExpectedLater bool `yaml:"expected_later"`
}

// JobClassConfig says how recurring jobs are recognised.
type JobClassConfig struct {
	// By is tag (jobclass=NAME, falling back to name), name, queue or user.
	By string `yaml:"by"`
}

// CalibrateConfig tunes the CR estimator.
type CalibrateConfig struct {
	MinSamples    int    `yaml:"min_samples"`
	HalfLifeRuns  int    `yaml:"half_life_runs"`
	ReferenceType string `yaml:"reference_type"`
	// RecomputeEvery is the most often newly ingested attempts rebuild the
	// CR table and the deadline models.
	RecomputeEvery time.Duration `yaml:"recompute_every"`
}

// SafetyConfig bounds what one cycle may change (USER-ASKS #5, #8).
type SafetyConfig struct {
	// MaxStepPercent caps the change of any capacity in one cycle, in
	// percentage points of the parent.
	MaxStepPercent float64 `yaml:"max_step_percent"`
	// HysteresisPercent skips changes smaller than this.
	HysteresisPercent float64 `yaml:"hysteresis_percent"`
	// FloorContainers keeps every queue at least this many containers'
	// worth in each partition it uses (YARN-11073: tiny capacities misbehave).
	FloorContainers int `yaml:"floor_containers"`
	// AllowPriorityChanges lets the sidecar PUT app priorities.
	AllowPriorityChanges bool `yaml:"allow_priority_changes"`
	// KeepRackLocalityReset forbids setting the global
	// rack-locality-full-reset=false when queues are routed to labelled
	// (typically compute-only) partitions.
	KeepRackLocalityReset bool `yaml:"keep_rack_locality_reset"`
	// KeepBusyQueues stops the plan taking default-partition capacity from
	// a queue below its admin's value while that queue has work pending
	// (BusyQueueFloor). Opt-in: it pins both queues of a two-queue cluster
	// that is busy everywhere, where moving capacity is the lever.
	KeepBusyQueues bool `yaml:"keep_busy_queues"`
	// RaiseMaximumCapacity lets the sidecar set the leaves it plans to
	// maximum-capacity 100, so any queue may borrow all idle capacity.
	// Off (the default), each keeps the maximum-capacity the admin had set
	// when the sidecar first saw it, raised only as far as a capacity the
	// sidecar writes requires (step_ceilings.go).
	RaiseMaximumCapacity bool `yaml:"raise_maximum_capacity"`
	// HarmMarginPercent: a plan under which a running class is predicted
	// more than this much slower than under the admin's own configuration
	// is cut back toward it (step_harm.go; 0: 2, negative: no check).
	HarmMarginPercent float64 `yaml:"harm_margin_percent"`
	// CalibrationMaxContainers bounds what calibration exposes to an
	// unmeasured partition: only a queue with at most this many containers
	// of demand is sent there (0: 16).
	CalibrationMaxContainers int64 `yaml:"calibration_max_containers"`
	// IdleWindow: a queue that had demand within this window keeps the
	// admin's guarantee in its home partition, and a route into a
	// partition stands only while it fits in what that partition's own
	// queues leave idle (step_lendidle.go; 0: 10m, negative: off).
	IdleWindow time.Duration `yaml:"idle_window"`
	// AllowNodeLabelChanges lets the sidecar add labels or relabel nodes.
	AllowNodeLabelChanges bool `yaml:"allow_node_label_changes"`
	// VerifyTimeout bounds the read-back after a mutation.
	VerifyTimeout time.Duration `yaml:"verify_timeout"`
}

// DeadlineConfig holds completion-time goals that tags do not carry.
type DeadlineConfig struct {
	// SLO per job class: finish within this long of submission.
	SLO map[string]time.Duration `yaml:"slo"`
	// Confidence for "containers needed" (e.g. 0.9).
	Confidence float64 `yaml:"confidence"`
	// Samples for the Monte-Carlo completion-time distribution.
	Samples int `yaml:"samples"`
}

// ScheduleConfig holds cron expressions (robfig/cron) for periodic work.
type ScheduleConfig struct {
	Calibrate string `yaml:"calibrate"`
	Report    string `yaml:"report"`
}

// Default fills unset fields with the documented defaults.
func (c *Config) Default() {
	if c.Mode == "" {
		c.Mode = act.ModeDryRun
	}
	if c.Timeout == 0 {
		c.Timeout = 10 * time.Second
	}
	if c.Interval == 0 {
		c.Interval = 30 * time.Second
	}
	if c.JobBudget == 0 {
		c.JobBudget = yarn.DefaultJobBudget
	}
	if c.NodeListingMaxAge == 0 {
		c.NodeListingMaxAge = MaxAge(yarn.DefaultNodeListingMaxAge)
	}
	if c.AppUsageMaxAge == 0 {
		c.AppUsageMaxAge = MaxAge(yarn.DefaultAppUsageMaxAge)
	}
	if c.Store == "" {
		c.Store = "yarn-sidecar.db"
	}
	if c.AuditLog == "" {
		c.AuditLog = "yarn-sidecar-audit.jsonl"
	}
	if c.Listen == "" {
		c.Listen = "127.0.0.1:9464"
	}
	if c.JobClass.By == "" {
		c.JobClass.By = "tag"
	}
	if c.Calibrate.MinSamples == 0 {
		c.Calibrate.MinSamples = 3
	}
	if c.Calibrate.HalfLifeRuns == 0 {
		c.Calibrate.HalfLifeRuns = 5
	}
	if c.Calibrate.RecomputeEvery == 0 {
		c.Calibrate.RecomputeEvery = 5 * time.Minute
	}
	if c.Safety.MaxStepPercent == 0 {
		c.Safety.MaxStepPercent = 25
	}
	if c.Safety.HysteresisPercent == 0 {
		c.Safety.HysteresisPercent = 2
	}
	if c.Safety.FloorContainers == 0 {
		c.Safety.FloorContainers = 1
	}
	if c.Safety.VerifyTimeout == 0 {
		c.Safety.VerifyTimeout = 30 * time.Second
	}
	if c.Deadlines.Confidence == 0 {
		c.Deadlines.Confidence = 0.9
	}
	if c.Deadlines.Samples == 0 {
		c.Deadlines.Samples = 2000
	}
	if c.Schedule.Calibrate == "" {
		c.Schedule.Calibrate = "@every 10m"
	}
	if c.Schedule.Report == "" {
		c.Schedule.Report = "@every 1h"
	}
	if c.HDFS.MaxCallsPerCycle == 0 {
		// Defaulted here, not only where it is used, so the log and the
		// status say the value in force.
		c.HDFS.MaxCallsPerCycle = DefaultMaxNameNodeCalls
	}
	preemptionDefaults(&c.Preemption)
	c.defaultGuarantees()
}

// ConfigError lists every bad field of a config, by path.
type ConfigError struct {
	File   string
	Fields []string // "safety.max_step_percent: must be in (0, 100]"
	// Cluster: the fields name what the live cluster does not have
	// (CheckAgainstCluster).
	Cluster bool
}

func (e *ConfigError) Error() string {
	where := "config"
	if e.File != "" {
		where = "config " + e.File
	}
	what := "invalid field(s)"
	if e.Cluster {
		what = "name(s) the cluster does not have"
	}
	return fmt.Sprintf("%s: %d %s:\n  %s", where, len(e.Fields), what, strings.Join(e.Fields, "\n  "))
}

// Validate checks every field and lists all the bad ones at once.
func (c *Config) Validate() error {
	var bad []string
	add := func(path, format string, a ...any) { bad = append(bad, path+": "+fmt.Sprintf(format, a...)) }
	if c.Mode != act.ModeDryRun && c.Mode != act.ModeApply && c.Mode != act.ModePropose {
		add("mode", "%q is not dry-run, propose or apply", c.Mode)
	}
	switch c.Act.Via {
	case "":
	case ActViaRefreshQueues:
		if c.Act.CapacitySchedulerXML == "" && c.HadoopConfDir == "" {
			add("act.capacity_scheduler_xml", "refresh-queues needs the file: set it, or hadoop_conf_dir")
		}
		if len(c.Act.AdminAddresses) > 1 && !c.Act.SharedFile {
			add("act.shared_file", "%d RMs (admin_addresses) each read their own capacity-scheduler.xml and the sidecar writes only this host's: put the file on storage every RM reads and set shared_file: true, or use mode: propose", len(c.Act.AdminAddresses))
		}
	default:
		add("act.via", "%q is not refresh-queues (or empty: the scheduler-conf API only)", c.Act.Via)
	}
	if !KnownStrategy(c.Plan.Strategy) {
		add("plan.strategy", "%q is not ps or replay", c.Plan.Strategy)
	}
	if c.Plan.Window < 0 || c.Plan.Every < 0 {
		add("plan", "window and every must not be negative, got %s and %s", c.Plan.Window, c.Plan.Every)
	}
	for i, u := range c.RM {
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			add(fmt.Sprintf("rm[%d]", i), "%q must start with http:// or https://", u)
		}
	}
	if c.Timeout < 0 {
		add("timeout", "must be positive, got %s", c.Timeout)
	}
	if c.HDFS.MaxCallsPerCycle < 0 {
		add("hdfs.max_calls_per_cycle", "must not be negative, got %d", c.HDFS.MaxCallsPerCycle)
	}
	if c.Interval < time.Second {
		add("interval", "must be at least 1s, got %s", c.Interval)
	}
	if h := c.HA; h != nil {
		for _, p := range h.validate() {
			add("ha."+p[0], "%s", p[1])
		}
	}
	if c.StateDir != "" && !filepath.IsAbs(c.StateDir) {
		add("state_dir", "%q must be an absolute path (commands run from any directory must find the same state)", c.StateDir)
	}
	for q, qc := range c.Queues {
		if !strings.HasPrefix(q, "root.") {
			add("queues."+q, "queue must be a full path starting with root.")
		}
		if qc.Weight < 0 {
			add("queues."+q+".weight", "must not be negative, got %g", qc.Weight)
		}
	}
	if k := c.Kerberos; k != nil && k.Keytab != "" && !strings.Contains(k.Principal, "@") {
		add("kerberos.principal", "must be name[/host]@REALM when a keytab is given")
	}
	for i, r := range c.NodeTypes {
		if r.Name == "" {
			add(fmt.Sprintf("node_types[%d].name", i), "is required")
		}
		if r.Label == "" && r.HostPattern == "" && r.MinGPUs == 0 {
			add(fmt.Sprintf("node_types[%d]", i), "needs label, host_pattern or min_gpus")
		}
	}
	switch c.JobClass.By {
	case "tag", "name", "queue", "user":
	default:
		add("job_class.by", "%q is not tag, name, queue or user", c.JobClass.By)
	}
	if c.Calibrate.MinSamples < 1 {
		add("calibration.min_samples", "must be at least 1, got %d", c.Calibrate.MinSamples)
	}
	if c.Safety.MaxStepPercent <= 0 || c.Safety.MaxStepPercent > 100 {
		add("safety.max_step_percent", "must be in (0, 100], got %g", c.Safety.MaxStepPercent)
	}
	if c.Safety.HysteresisPercent < 0 || c.Safety.HysteresisPercent >= c.Safety.MaxStepPercent {
		add("safety.hysteresis_percent", "must be in [0, max_step_percent), got %g", c.Safety.HysteresisPercent)
	}
	if c.Safety.CalibrationMaxContainers < 0 {
		add("safety.calibration_max_containers", "must not be negative, got %d", c.Safety.CalibrationMaxContainers)
	}
	if c.Slot.MemoryMB < 0 {
		add("slot.memory_mb", "must not be negative, got %d", c.Slot.MemoryMB)
	}
	if c.Slot.VCores < 0 {
		add("slot.vcores", "must not be negative, got %d", c.Slot.VCores)
	}
	if c.Slot.MemoryMB == 0 && c.Slot.VCores > 0 {
		add("slot.memory_mb", "must be set with slot.vcores (%d)", c.Slot.VCores)
	}
	if c.Safety.FloorContainers < 0 {
		add("safety.floor_containers", "must not be negative, got %d", c.Safety.FloorContainers)
	}
	if c.Deadlines.Confidence <= 0 || c.Deadlines.Confidence >= 1 {
		add("deadlines.confidence", "must be in (0, 1), got %g", c.Deadlines.Confidence)
	}
	for cls, d := range c.Deadlines.SLO {
		if d <= 0 {
			add("deadlines.slo."+cls, "must be positive, got %s", d)
		}
	}
	validatePreemption(c.Preemption, add)
	c.validateGuarantees(add)
	bad = append(bad, c.Spark.validate()...)
	if len(bad) > 0 {
		return &ConfigError{Fields: bad}
	}
	return nil
}

// ParseConfig decodes YAML (unknown fields are errors, named with their
// line), defaults and validates it.
func ParseConfig(data []byte) (*Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) { // empty file: all defaults
		return nil, fmt.Errorf("parse config: %w", err)
	}
	c.Default()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// LoadConfig reads, defaults and validates a config file. An empty path
// means all defaults.
func LoadConfig(path string) (*Config, error) {
	if path == "" {
		return ParseConfig(nil)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	c, err := ParseConfig(data)
	var ce *ConfigError
	if errors.As(err, &ce) {
		ce.File = path
		return nil, ce
	}
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// MaxAge is how long something read may be reused: a duration ("5m"), or
// -1 (any negative) for never.
type MaxAge time.Duration

// UnmarshalYAML takes a duration string or a bare negative number.
func (m *MaxAge) UnmarshalYAML(n *yaml.Node) error {
	if v, err := strconv.ParseInt(n.Value, 10, 64); err == nil && n.Tag == "!!int" {
		if v > 0 {
			return fmt.Errorf("line %d: %d has no unit: write a duration (%ds) or -1 for never", n.Line, v, v)
		}
		*m = 0 // 0: the default
		if v < 0 {
			*m = -1
		}
		return nil
	}
	d, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration or -1", n.Line, n.Value)
	}
	*m = MaxAge(d)
	if d < 0 {
		*m = -1
	}
	return nil
}

// Duration is the max age as a time.Duration (negative: never reuse).
func (m MaxAge) Duration() time.Duration { return time.Duration(m) }
