package experiment

import (
	"fmt"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

// Switch is one sidecar setting that changes what a comparison measures,
// as the sidecar's runs had it (issue 35: compare reported the sidecar at
// 1.00× on an unlabelled cluster without saying that label changes, off
// by default, were off; with them on it was 0.78×).
type Switch struct {
	Name string `json:"name"` // the config key
	On   bool   `json:"on"`
	// Default is the value a config that does not mention it gets.
	Default bool   `json:"default"`
	Note    string `json:"note,omitempty"`
}

// SidecarSwitches lists the switches of the configuration Compare's
// sidecar runs use: the defaults of an empty config, with the options
// Compare sets, and the node types RunSidecar writes from the scenario.
func SidecarSwitches(sc *sim.Scenario, o CompareOptions) []Switch {
	def, _ := sidecar.ParseConfig(nil)
	labelled := len(sc.Labels) > 0
	labels := Switch{Name: "safety.allow_node_label_changes", On: o.Labels, Default: def.Safety.AllowNodeLabelChanges}
	if !o.Labels {
		labels.Note = "the sidecar kept the node labels as they are"
		if !labelled {
			labels.Note = "this cluster has no node labels: with label changes on the sidecar may lay out a partition and the figures may differ (--allow-node-label-changes)"
		}
	}
	return []Switch{
		labels,
		{Name: "safety.allow_priority_changes", On: def.Safety.AllowPriorityChanges, Default: def.Safety.AllowPriorityChanges},
		{Name: "safety.raise_maximum_capacity", On: def.Safety.RaiseMaximumCapacity, Default: def.Safety.RaiseMaximumCapacity},
		{Name: "safety.keep_busy_queues", On: def.Safety.KeepBusyQueues, Default: def.Safety.KeepBusyQueues},
		{Name: "safety.keep_rack_locality_reset", On: def.Safety.KeepRackLocalityReset, Default: def.Safety.KeepRackLocalityReset},
		{Name: "hdfs.enabled", On: def.HDFS.Enabled, Default: def.HDFS.Enabled, Note: "block maps of running jobs not read"},
		{Name: "node_types", On: true, Default: false,
			Note: fmt.Sprintf("%d host-name rules, one per scenario node type (what the admin writes; without them same-shaped nodes are one type)", len(NodeTypeRules(sc)))},
	}
}
