package main

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/yarn-sidecar/yarn-sidecar/internal/version"
)

func init() { register(newVersionCmd) }

func newVersionCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit, Go version and the Hadoop releases this build was checked against",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			in := version.Get()
			if output == "json" {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(in)
			}
			return in.Write(cmd.OutOrStdout(), "yarn-sidecar")
		},
	}
	outputFlag(cmd, &output)
	return cmd
}
