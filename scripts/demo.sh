#!/bin/sh
# make demo: the mini cluster (a Go stand-in for YARN) with GPU and CPU
# nodes runs lee-gpu, then hetero-100, under stock capacities and with the
# sidecar steering it through the REST API; prints the before/after table,
# the deadline report, and the HTML report's path. Virtual time: ~1 minute.
set -eu
cd "$(dirname "$0")/.."
OUT="${DEMO_OUT:-demo-out}"
exec go run ./cmd/yarnsim demo --out "$OUT" "$@"
