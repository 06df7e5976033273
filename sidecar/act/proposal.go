package act

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/csxml"
)

// LiveFile is the capacity-scheduler.xml a proposal is made against: the
// RM host's file (Path, Data), or none (Data nil: the configuration came
// from the RM and the file is rendered from it).
type LiveFile struct {
	Path string
	Data []byte
}

// LiveFiler is implemented by ConfAPIs that can read the live
// capacity-scheduler.xml (AnyStore with CapacitySchedulerXML).
type LiveFiler interface {
	LiveFile(ctx context.Context) (LiveFile, error)
}

// LiveFile reads CapacitySchedulerXML; without one, Data is nil.
func (a *AnyStore) LiveFile(context.Context) (LiveFile, error) {
	if a.CapacitySchedulerXML == "" {
		return LiveFile{}, nil
	}
	b, err := os.ReadFile(a.CapacitySchedulerXML)
	if err != nil {
		return LiveFile{}, fmt.Errorf("read the live capacity-scheduler.xml: %w", err)
	}
	return LiveFile{Path: a.CapacitySchedulerXML, Data: b}, nil
}

// Proposal is one plan as an admin would apply it by hand or through
// Ambari / Cloudera Manager (mode: propose; plan -o xml|diff): the new
// capacity-scheduler.xml, its unified diff against the live one, and the
// commands that apply it.
type Proposal struct {
	Time       time.Time             `json:"time"`
	ConfSource string                `json:"confSource,omitempty"`
	Changes    []plan.Change         `json:"changes"`
	Priorities []plan.PriorityChange `json:"priorities,omitempty"`
	// File is the live file's path; empty when the live file was rendered
	// from the configuration the RM gave (Rendered).
	File     string `json:"file,omitempty"`
	Rendered bool   `json:"rendered,omitempty"`
	XML      string `json:"xml"`
	Diff     string `json:"diff"`
	// MutationXML is the same change as one scheduler-conf mutation (for a
	// mutable store; PUT /ws/v1/cluster/scheduler-conf).
	MutationXML string `json:"mutationXml,omitempty"`
	// Apply are the commands that apply it, in order.
	Apply []string `json:"apply"`
}

// BuildProposal writes plan as a proposal against live. Only the changed
// properties are edited (csxml.Edit); with no live file the base
// configuration is rendered and the diff is against that rendering.
func BuildProposal(plan *plan.Plan, live LiveFile, fileStore bool) (Proposal, error) {
	p := Proposal{Time: plan.Time, ConfSource: plan.ConfSource, Changes: plan.Changes, Priorities: plan.Priorities, File: live.Path}
	base := live.Data
	if base == nil {
		base, p.Rendered = csxml.Render(plan.Base), true
	}
	set, unset := csxml.Changes(plan.Base, plan.Desired)
	next, err := csxml.Edit(base, set, unset)
	if err != nil {
		return Proposal{}, fmt.Errorf("edit capacity-scheduler.xml: %w", err)
	}
	p.XML = string(next)
	if p.Diff, err = csxml.UnifiedDiff("a/capacity-scheduler.xml", "b/capacity-scheduler.xml", base, next); err != nil {
		return Proposal{}, fmt.Errorf("diff capacity-scheduler.xml: %w", err)
	}
	if m, err := plan.Mutation.EncodeXML(); err == nil && len(plan.Changes) > 0 {
		p.MutationXML = string(m)
	}
	if len(plan.Changes) > 0 {
		file := live.Path
		if file == "" {
			file = "$HADOOP_CONF_DIR/capacity-scheduler.xml"
		}
		if fileStore {
			p.Apply = append(p.Apply,
				fmt.Sprintf("patch -p1 -d %s < proposal.diff   # or replace the file with the proposed one, on every RM host", dirOf(file)),
				"yarn rmadmin -refreshQueues   # once per RM (HA: each RM reads its own file)")
		} else {
			p.Apply = append(p.Apply,
				"curl -X PUT -H 'Content-Type: application/xml' --data-binary @mutation.xml 'http://<active-rm>:8088/ws/v1/cluster/scheduler-conf?user.name=<admin>'")
		}
	}
	for _, pc := range plan.Priorities {
		p.Apply = append(p.Apply, fmt.Sprintf("yarn application -appId %s -updatePriority %d", pc.AppID, pc.To))
	}
	return p, nil
}

func dirOf(path string) string { return filepath.Dir(path) }

// ProposalBoard holds the latest proposal for the daemon's /proposal.
type ProposalBoard struct {
	mu  sync.Mutex
	p   *Proposal
	err error
}

// Set records the latest proposal (or why none could be made).
func (b *ProposalBoard) Set(p *Proposal, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.p, b.err = p, err
}

// Get returns the latest proposal; nil before the first cycle's.
func (b *ProposalBoard) Get() (*Proposal, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.p, b.err
}
