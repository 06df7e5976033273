package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/yarn-sidecar/yarn-sidecar/yarn"
	"github.com/yarn-sidecar/yarn-sidecar/yarn/cluster"
)

// progressSource reads finished jobs and prints a progress line on stderr.
type progressSource struct {
	c   *yarn.Client
	cmd *cobra.Command
}

func (p progressSource) FinishedJobs(ctx context.Context, since time.Time) ([]cluster.App, error) {
	fmt.Fprintf(p.cmd.ErrOrStderr(), "reading jobs finished since %s from JobHistory ...", since.Format(time.RFC3339))
	apps, err := p.c.FinishedJobs(ctx, since)
	attempts := 0
	for _, a := range apps {
		if a.Job != nil {
			attempts += len(a.Job.Attempts)
		}
	}
	fmt.Fprintf(p.cmd.ErrOrStderr(), "\r%d jobs, %d task attempts read                              \n", len(apps), attempts)
	return apps, err
}

// FinishedJob reads one job by id: the retry of a job JobHistory could not
// serve before (sidecar.HistoryJobSource).
func (p progressSource) FinishedJob(ctx context.Context, jobID string) (cluster.App, error) {
	fmt.Fprintf(p.cmd.ErrOrStderr(), "retrying %s, which JobHistory could not serve before\n", jobID)
	return p.c.FinishedJob(ctx, jobID)
}
