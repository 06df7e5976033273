package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/yarn-sidecar/yarn-sidecar/sidecar/act"
	"github.com/yarn-sidecar/yarn-sidecar/sidecar/plan"
)

// proposal writes plan as the admin would apply it, against the live
// capacity-scheduler.xml when the sidecar can read it.
func (d *Daemon) proposal(ctx context.Context, plan *plan.Plan) (*act.Proposal, error) {
	var live act.LiveFile
	if lf, ok := d.ConfAPI.(act.LiveFiler); ok {
		var err error
		if live, err = lf.LiveFile(ctx); err != nil {
			return nil, err
		}
	}
	fileStore := false
	if fs, ok := d.ConfAPI.(interface{ FileStore() bool }); ok {
		fileStore = fs.FileStore()
	}
	p, err := act.BuildProposal(plan, live, fileStore)
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// printProposal writes the text form: the diff, then how to apply it.
func printProposal(w io.Writer, p *act.Proposal) {
	src := p.File
	if p.Rendered {
		src = "capacity-scheduler.xml rendered from " + orDash(p.ConfSource) + " (no live file was read; set hadoop_conf_dir on the RM host to diff against it)"
	}
	fmt.Fprintf(w, "proposal made at %s against %s: %d change(s)\n", p.Time.UTC().Format("2006-01-02 15:04:05Z"), src, len(p.Changes))
	io.WriteString(w, p.Diff)
	if len(p.Apply) > 0 {
		fmt.Fprintln(w, "apply with:")
		for _, c := range p.Apply {
			fmt.Fprintln(w, "  ", c)
		}
	}
}

// serveProposal serves the latest proposal: the diff and commands as text,
// ?format=xml the proposed file, diff the diff alone, json all of it.
func serveProposal(b *act.ProposalBoard) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, err := b.Get()
		if err != nil {
			http.Error(w, "no proposal: "+err.Error(), http.StatusInternalServerError)
			return
		}
		if p == nil {
			http.Error(w, "no proposal yet: the first cycle has not finished", http.StatusServiceUnavailable)
			return
		}
		switch strings.ToLower(r.URL.Query().Get("format")) {
		case "xml":
			w.Header().Set("Content-Type", "application/xml")
			io.WriteString(w, p.XML)
		case "diff":
			w.Header().Set("Content-Type", "text/x-diff")
			io.WriteString(w, p.Diff)
		case "json":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(p)
		case "", "text":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			printProposal(w, p)
		default:
			http.Error(w, "unknown format: want text, xml, diff or json", http.StatusBadRequest)
		}
	}
}
