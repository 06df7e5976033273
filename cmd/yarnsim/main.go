// Command yarnsim serves a mini-cluster scenario — a Go stand-in for a YARN
// cluster that speaks the RM, MR AM and JobHistory REST formats, and an HDFS
// NameNode over the scenario's blocks — with virtual time running N× wall
// time. Loopback by default.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/yarn-sidecar/yarn-sidecar/internal/manpage"
	"github.com/yarn-sidecar/yarn-sidecar/internal/version"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/namenode"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "yarnsim:", err)
		os.Exit(1)
	}
}

// newRootCmd is yarnsim's command line, with yarn-sidecar's conventions
// (cobra): `--help` and `help` print the usage and exit 0 without starting
// anything, subcommands are listed, flags are --long. Without a
// subcommand yarnsim serves a scenario (serve is its explicit name).
func newRootCmd() *cobra.Command {
	var f serveFlags
	root := &cobra.Command{
		Use:   "yarnsim",
		Short: "Serve a mini YARN cluster in virtual time, run the demo, or compare the sidecar with static configurations",
		Long: `yarnsim serves a mini-cluster scenario: a Go stand-in for a YARN cluster that speaks the RM,
MR AM and JobHistory REST formats and the scheduler-conf API, with an HDFS NameNode over the
scenario's blocks, in virtual time running --speed times wall time, on loopback by default.
It is not Hadoop: what it does not model is listed in testenv/sim/doc.go.`,
		Example: `  yarnsim --scenario hetero-100            # serve, print the RM URL
  yarnsim demo                               # what make demo runs
  yarnsim compare --scenario my-cluster.yaml # stock vs best static vs sidecar`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.Get().String(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return serve(ctx, f, cmd.OutOrStdout())
		},
	}
	root.SetVersionTemplate("yarnsim {{.Version}}\n")
	f.add(root)
	var sf serveFlags
	serveCmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a scenario's mini cluster (what yarnsim does without a subcommand)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return serve(ctx, sf, cmd.OutOrStdout())
		},
	}
	sf.add(serveCmd)
	root.AddCommand(serveCmd, newDemoCmd(), newCompareCmd(), manpage.Command("yarnsim"))
	root.SetContext(context.Background())
	return root
}

// serveFlags are serve's options.
type serveFlags struct {
	scenario, listen, hadoopVersion, confStore, confDir string
	speed                                               float64
	seed                                                int64
	untilDone, ha                                       bool
}

func (f *serveFlags) add(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.scenario, "scenario", "lee-gpu", "shipped scenario name ("+fmt.Sprint(sim.Names())+", fb-2009) or a YAML file")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:0", "address to serve the RM on (loopback by default; ignored with --ha)")
	fs.Float64Var(&f.speed, "speed", 60, "virtual seconds per wall second")
	fs.Int64Var(&f.seed, "seed", 1, "random seed")
	fs.BoolVar(&f.untilDone, "until-done", false, "exit when every scenario job has finished, printing their times")
	fs.StringVar(&f.hadoopVersion, "hadoop-version", "", "serve this Hadoop release's dialect ("+rmweb.Hadoop336+" or "+rmweb.Hadoop341+"); default: the scenario's hadoop_version")
	fs.StringVar(&f.confStore, "conf-store", "", "yarn.scheduler.configuration.store.class (file, memory, fs, zk, leveldb); default: the scenario's conf_store")
	fs.BoolVar(&f.ha, "ha", false, "serve an RM HA pair (rm1 active, rm2 standby) on two loopback ports")
	fs.StringVar(&f.confDir, "conf-dir", "", "file store: keep capacity-scheduler.xml in this directory and serve the RM admin protocol (refreshQueues) on a loopback port; default: a temporary directory")
}

// serve runs the mini cluster until ctx ends (or, with --until-done, until
// every job has finished), printing where its RM and NameNode listen.
func serve(ctx context.Context, f serveFlags, out io.Writer) error {
	if f.speed <= 0 {
		return fmt.Errorf("--speed must be positive, got %v", f.speed)
	}
	sc, err := sim.LoadScenario(f.scenario)
	if err != nil {
		return err
	}
	if f.hadoopVersion != "" {
		if _, err := rmweb.ParseHadoopVersion(f.hadoopVersion); err != nil {
			return fmt.Errorf("--hadoop-version: %w", err)
		}
		sc.HadoopVersion = f.hadoopVersion
	}
	switch f.confStore {
	case "":
	case "file":
		sc.ConfStore, sc.FileStore = "file", true
	case "memory", "fs", "zk", "leveldb":
		sc.ConfStore, sc.FileStore = f.confStore, false
	default:
		return fmt.Errorf("--conf-store %q: want file, memory, fs, zk or leveldb", f.confStore)
	}
	c, err := sim.NewCluster(sc, f.seed)
	if err != nil {
		return err
	}
	nn, err := namenode.Start(c.HDFS(), namenode.Options{})
	if err != nil {
		return fmt.Errorf("start the mini NameNode: %w", err)
	}
	defer nn.Close()

	var rmURLs []string
	var srv *http.Server
	if f.ha {
		pair, err := rmweb.StartHAPair(c, c.RMOptions())
		if err != nil {
			return err
		}
		defer pair.Close()
		rmURLs = pair.URLs()
	} else {
		ln, err := net.Listen("tcp", f.listen)
		if err != nil {
			return fmt.Errorf("listen %s: %w", f.listen, err)
		}
		srv = &http.Server{Handler: c.Handler(), ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		defer shutdown(srv)
		rmURLs = []string{"http://" + ln.Addr().String()}
	}
	if sc.FileStore {
		dir := f.confDir
		if dir == "" {
			if dir, err = os.MkdirTemp("", "yarnsim-conf-"); err != nil {
				return err
			}
			defer os.RemoveAll(dir)
		}
		path, err := c.UseConfDir(dir)
		if err != nil {
			return err
		}
		admin, err := c.StartAdmin()
		if err != nil {
			return fmt.Errorf("start the RM admin endpoint: %w", err)
		}
		defer admin.Close()
		fmt.Fprintf(out, "yarnsim: file store: %s, RM admin (refreshQueues) at %s\n", path, admin.Addr())
	}
	version, _ := rmweb.ParseHadoopVersion(sc.HadoopVersion)
	fmt.Fprintf(out, "yarnsim: ResourceManager at %s (scenario %s, Hadoop %s dialect, speed %g×)\n", strings.Join(rmURLs, ","), sc.Name, version, f.speed)
	fmt.Fprintf(out, "yarnsim: NameNode at hdfs://%s\n", nn.Addr())

	// The only use of wall time: step virtual time in small increments.
	tick := 50 * time.Millisecond
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			c.Step(time.Duration(float64(tick) * f.speed))
			if f.untilDone && c.Done() {
				printResults(out, c)
				return nil
			}
		}
	}
}

func shutdown(srv *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "yarnsim: shutdown:", err)
	}
}

func printResults(out io.Writer, c *sim.Cluster) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "APP\tNAME\tCLASS\tQUEUE\tSUBMIT\tFINISH\tDURATION")
	for _, r := range c.Results() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.AppID, r.Name, r.Class, r.Queue, r.Submit.Format("15:04:05"), r.Finish.Format("15:04:05"), r.Duration().Round(time.Second))
	}
	tw.Flush()
}
