#!/bin/sh
# make demo: the mini cluster (a Go stand-in for YARN) with GPU and CPU
# nodes runs lee-gpu, then hetero-100, under stock capacities and with the
# sidecar steering it through the REST API; prints the before/after table,
# the deadline report, and the HTML report's path, and saves a screenshot of
# each report next to it (headless Chromium; skipped when it is absent).
# Virtual time: ~1 minute.
set -eu
cd "$(dirname "$0")/.."
OUT="${DEMO_OUT:-demo-out}"
go run ./cmd/yarnsim demo --out "$OUT" "$@"

CHROMIUM=""
for c in chromium chromium-browser google-chrome; do
	if command -v "$c" >/dev/null 2>&1; then
		CHROMIUM="$(command -v "$c")"
		break
	fi
done
if [ -z "$CHROMIUM" ]; then
	echo "screenshots skipped: no chromium, chromium-browser or google-chrome on PATH (apt-get install -y chromium)"
	exit 0
fi
for html in "$OUT"/report-*.html; do
	[ -e "$html" ] || continue
	png="${html%.html}.png"
	profile="$(mktemp -d)"
	if "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" --window-size=1280,4800 --virtual-time-budget=5000 \
		--screenshot="$png" "file://$(cd "$(dirname "$html")" && pwd)/$(basename "$html")" >/dev/null 2>&1; then
		echo "screenshot:  $png"
	else
		echo "screenshot of $html failed (chromium exited non-zero)"
	fi
	rm -rf "$profile"
done
