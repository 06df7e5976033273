# yarn-sidecar — see README.md. Targets a newcomer runs: `make demo`, `make test`.
GO      ?= go
BIN     := bin
PKGS    := ./...

.PHONY: all build test test-browser bench demo lint proto clean fuzz soak dist

all: build

build:
	$(GO) build -o $(BIN)/ ./cmd/...

# Unit, integration (in-process mini cluster) and browser tests. The browser
# test runs when Chromium is present (.ci/run installs it) and skips otherwise.
test:
	$(GO) vet $(PKGS)
	$(GO) test -count=1 -timeout 9m $(PKGS)

test-browser:
	$(GO) test -count=1 -run Browser -v ./sidecar/...

# Every fuzz target for FUZZTIME each (`make test` replays their seed
# corpora, testdata/fuzz included). A crash leaves its input under the
# package's testdata/fuzz/<Target>/: fix it and commit that file.
FUZZTIME ?= 1m
FUZZ_TARGETS := \
	./yarn:FuzzClientViews ./yarn:FuzzHadoopConf \
	./yarn/schedconf:FuzzParseConfInfo ./yarn/schedconf:FuzzParseMutation ./yarn/schedconf:FuzzParseCapacity \
	./hdfs/ipc:FuzzReadPacket ./hdfs/ipc:FuzzCall ./hdfs:FuzzLoadOptions \
	./testenv/sim:FuzzParseScenario ./sidecar:FuzzParseConfig ./sidecar:FuzzReadAudit ./calibrate:FuzzImport
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "== $$fn ($$pkg) for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) $$pkg; done

# The kill -9 harness with 100 kills (`make test` runs 10).
soak: build
	KILLTEST_KILLS=100 $(GO) test -count=1 -timeout 30m -run TestKillAnywhere -v ./testenv/killtest/

# What ships, one benchmark row per goal (≤150 rows; `go run ./testenv/bench
# -list` counts them), printed as one table. BENCH_FLAGS=-candidates adds the
# candidates, diagnostics and breakdowns (BENCHMARKS.md).
BENCH_FLAGS ?=
bench: build
	$(GO) run ./testenv/bench $(BENCH_FLAGS)

demo: build
	./scripts/demo.sh

# Release archives (tar.gz per GOOS/GOARCH) and Debian packages in dist/,
# versioned by `git describe --tags --always` (scripts/dist.sh; no root).
dist:
	./scripts/dist.sh

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

# Regenerate protobuf code (not part of `make test`).
proto:
	$(GO) generate ./hdfs/...

clean:
	rm -rf $(BIN) dist
