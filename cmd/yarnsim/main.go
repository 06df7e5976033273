// Command yarnsim serves a mini-cluster scenario — a Go stand-in for a YARN
// cluster that speaks the RM, MR AM and JobHistory REST formats, and an HDFS
// NameNode over the scenario's blocks — with virtual time running N× wall
// time. Loopback by default.
package main

import (
	"context"
	"errors"
	"flag"
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

	"github.com/yarn-sidecar/yarn-sidecar/testenv/namenode"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/rmweb"
	"github.com/yarn-sidecar/yarn-sidecar/testenv/sim"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "yarnsim:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) > 1 && os.Args[1] == "demo" {
		return runDemo(os.Args[2:])
	}
	if len(os.Args) > 1 && os.Args[1] == "compare" {
		return runCompare(os.Args[2:], os.Stdout)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return serve(ctx, os.Args[1:], os.Stdout)
}

// serve runs the mini cluster until ctx ends (or, with --until-done, until
// every job has finished), printing where its RM and NameNode listen.
func serve(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("yarnsim", flag.ContinueOnError)
	scenario := fs.String("scenario", "lee-gpu", "shipped scenario name ("+fmt.Sprint(sim.Names())+", fb-2009) or a YAML file")
	listen := fs.String("listen", "127.0.0.1:0", "address to serve the RM on (loopback by default; ignored with --ha)")
	speed := fs.Float64("speed", 60, "virtual seconds per wall second")
	seed := fs.Int64("seed", 1, "random seed")
	untilDone := fs.Bool("until-done", false, "exit when every scenario job has finished, printing their times")
	hadoopVersion := fs.String("hadoop-version", "", "serve this Hadoop release's dialect ("+rmweb.Hadoop336+" or "+rmweb.Hadoop341+"); default: the scenario's hadoop_version")
	confStore := fs.String("conf-store", "", "yarn.scheduler.configuration.store.class (file, memory, fs, zk, leveldb); default: the scenario's conf_store")
	ha := fs.Bool("ha", false, "serve an RM HA pair (rm1 active, rm2 standby) on two loopback ports")
	confDir := fs.String("conf-dir", "", "file store: keep capacity-scheduler.xml in this directory and serve the RM admin protocol (refreshQueues) on a loopback port; default: a temporary directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *speed <= 0 {
		return fmt.Errorf("--speed must be positive, got %v", *speed)
	}
	sc, err := sim.LoadScenario(*scenario)
	if err != nil {
		return err
	}
	if *hadoopVersion != "" {
		if _, err := rmweb.ParseHadoopVersion(*hadoopVersion); err != nil {
			return fmt.Errorf("--hadoop-version: %w", err)
		}
		sc.HadoopVersion = *hadoopVersion
	}
	switch *confStore {
	case "":
	case "file":
		sc.ConfStore, sc.FileStore = "file", true
	case "memory", "fs", "zk", "leveldb":
		sc.ConfStore, sc.FileStore = *confStore, false
	default:
		return fmt.Errorf("--conf-store %q: want file, memory, fs, zk or leveldb", *confStore)
	}
	c, err := sim.NewCluster(sc, *seed)
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
	if *ha {
		pair, err := rmweb.StartHAPair(c, c.RMOptions())
		if err != nil {
			return err
		}
		defer pair.Close()
		rmURLs = pair.URLs()
	} else {
		ln, err := net.Listen("tcp", *listen)
		if err != nil {
			return fmt.Errorf("listen %s: %w", *listen, err)
		}
		srv = &http.Server{Handler: c.Handler(), ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		defer shutdown(srv)
		rmURLs = []string{"http://" + ln.Addr().String()}
	}
	if sc.FileStore {
		dir := *confDir
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
	fmt.Fprintf(out, "yarnsim: ResourceManager at %s (scenario %s, Hadoop %s dialect, speed %g×)\n", strings.Join(rmURLs, ","), sc.Name, version, *speed)
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
			c.Step(time.Duration(float64(tick) * *speed))
			if *untilDone && c.Done() {
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
