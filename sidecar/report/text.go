package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/yarn-sidecar/yarn-sidecar/deadline"
)

// WriteDeadlines prints the per-queue deadline report as the table of
// `yarn-sidecar deadlines`: per job its deadline, progress, predicted p50
// and p90 finish, P(meet), containers held and needed at the confidence,
// and the verdict; per queue the containers its goals need. Times are
// shown relative to now (e.g. "+42m"), as an admin reads them in the
// morning, with the absolute deadline alongside.
func WriteDeadlines(w io.Writer, now time.Time, queues []deadline.QueueReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "QUEUE\tAPP\tNAME\tDEADLINE\tPROGRESS\tP50\tP90\tP(MEET)\tHELD\tNEEDED@CONF\tVERDICT")
	for _, q := range queues {
		for _, j := range q.Jobs {
			dl, pm, need := "-", "-", "-"
			if j.Deadline != nil {
				dl = fmt.Sprintf("%s (%s)", j.Deadline.UTC().Format("15:04"), rel(now, *j.Deadline))
			}
			if j.PMeet != nil {
				pm = fmt.Sprintf("%.0f%%", 100**j.PMeet)
			}
			if j.Deadline != nil && j.Needed > 0 {
				need = fmt.Sprint(j.Needed)
				if j.NeededIsHeld {
					need += " (held)" // an outlook at the executors held, not a search over more
				}
			}
			verdict := j.Verdict
			if j.Err != "" {
				verdict += " (" + j.Err + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.0f%%\t%s\t%s\t%s\t%d\t%s\t%s\n", q.Queue, j.AppID, j.Name, dl, 100*j.Progress,
				relOrDash(now, j.P50), relOrDash(now, j.P90), pm, j.Held, need, verdict)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var summary []string
	for _, q := range queues {
		if q.Needed == 0 && q.AtRisk == 0 {
			continue
		}
		summary = append(summary, fmt.Sprintf("queue %s: %d job(s) at risk; its goals need %d containers (the queue may hold %d)", q.Queue, q.AtRisk, q.Needed, q.MaxAllowed))
	}
	if len(summary) > 0 {
		_, err := fmt.Fprintln(w, strings.Join(summary, "\n"))
		return err
	}
	return nil
}

func relOrDash(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return rel(now, t)
}

// rel prints t relative to now, rounded to the minute: "+1h05m", "-3m".
func rel(now, t time.Time) string {
	d := t.Sub(now).Round(time.Minute)
	sign := "+"
	if d < 0 {
		sign, d = "-", -d
	}
	h, m := int(d.Hours()), int(d.Minutes())%60
	if h > 0 {
		return fmt.Sprintf("%s%dh%02dm", sign, h, m)
	}
	return fmt.Sprintf("%s%dm", sign, m)
}
