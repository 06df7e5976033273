# yarn-sidecar — see README.md. Targets a newcomer runs: `make demo`, `make test`.
GO      ?= go
BIN     := bin
PKGS    := ./...

.PHONY: all build test test-browser bench demo lint proto clean

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

# Every benchmark row of BENCHMARKS.md, printed as one table.
bench: build
	$(GO) run ./testenv/bench

demo: build
	./scripts/demo.sh

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

# Regenerate protobuf code (not part of `make test`).
proto:
	$(GO) generate ./hdfs/...

clean:
	rm -rf $(BIN)
