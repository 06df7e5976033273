package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar"
	"github.com/yarn-sidecar/yarn-sidecar/sparkobs"
)

// sparkApps are the status's running Spark apps, [] when none (issue 36
// item 5: status and the report show Spark apps and their stages).
func sparkApps(st sidecar.Status) []sparkobs.AppView {
	if st.Spark == nil {
		return []sparkobs.AppView{}
	}
	return st.Spark
}

// stageText is an app's stage in progress: "3 join (2 of 5 stages done)".
func stageText(a sparkobs.AppView) string {
	done := fmt.Sprintf("%d of %d stages done", a.StagesDone, a.Stages)
	if a.Stage == "" && a.StageID < 0 {
		return "none running (" + done + ")"
	}
	return fmt.Sprintf("%d %s (%s)", a.StageID, a.Stage, done)
}

// executorsText is an app's executors per executor type, with their
// cores: "gpu-a100 2 (8 cores), std 4 (16 cores)".
func executorsText(a sparkobs.AppView) string {
	if len(a.Executors) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(a.Executors))
	for _, t := range slices.Sorted(maps.Keys(a.Executors)) {
		parts = append(parts, fmt.Sprintf("%s %d (%d cores)", t, a.Executors[t], a.Cores[t]))
	}
	return strings.Join(parts, ", ")
}

// writeSpark prints the Spark apps' table under the queues' (nothing
// when none was read).
func writeSpark(w io.Writer, apps []sparkobs.AppView) error {
	if len(apps) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\n%d Spark apps read:\n", len(apps))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SPARK APP\tQUEUE\tCLASS\tSTAGE IN PROGRESS\tTASKS DONE/ACTIVE/PENDING\tEXECUTORS BY TYPE")
	for _, a := range apps {
		fmt.Fprintf(tw, "%s %s\t%s\t%s\t%s\t%d/%d/%d\t%s\n", a.AppID, a.Name, a.Queue, a.Class, stageText(a),
			a.TasksDone, a.TasksActive, a.TasksPending, executorsText(a))
	}
	return tw.Flush()
}
