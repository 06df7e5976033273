// Command yarnsim serves a mini-cluster scenario — a Go stand-in for a YARN
// cluster that speaks the RM, MR AM and JobHistory REST formats — with
// virtual time running N× wall time. Loopback by default.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

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
	scenario := flag.String("scenario", "lee-gpu", "shipped scenario name ("+fmt.Sprint(sim.Names())+", fb-2009) or a YAML file")
	listen := flag.String("listen", "127.0.0.1:0", "address to serve on (loopback by default)")
	speed := flag.Float64("speed", 60, "virtual seconds per wall second")
	seed := flag.Int64("seed", 1, "random seed")
	untilDone := flag.Bool("until-done", false, "exit when every scenario job has finished, printing their times")
	flag.Parse()
	if *speed <= 0 {
		return fmt.Errorf("--speed must be positive, got %v", *speed)
	}
	sc, err := sim.LoadScenario(*scenario)
	if err != nil {
		return err
	}
	c, err := sim.NewCluster(sc, *seed)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w", *listen, err)
	}
	srv := &http.Server{Handler: c.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	fmt.Printf("yarnsim: ResourceManager at http://%s (scenario %s, speed %g×)\n", ln.Addr(), sc.Name, *speed)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// The only use of wall time: step virtual time in small increments.
	tick := 50 * time.Millisecond
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			shutdown(srv)
			return nil
		case <-t.C:
			c.Step(time.Duration(float64(tick) * *speed))
			if *untilDone && c.Done() {
				printResults(c)
				shutdown(srv)
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

func printResults(c *sim.Cluster) {
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "APP\tNAME\tCLASS\tQUEUE\tSUBMIT\tFINISH\tDURATION")
	for _, r := range c.Results() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.AppID, r.Name, r.Class, r.Queue, r.Submit.Format("15:04:05"), r.Finish.Format("15:04:05"), r.Duration().Round(time.Second))
	}
	tw.Flush()
}
