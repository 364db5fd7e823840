# Tessera: set-up, run, test and benchmark on a fresh Debian 12 machine (GNU make).
# `make help` lists the targets; docs/development.md explains them.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

SWIFT ?= swift
# SwiftPM's build folder; set SCRATCH=.build-NAME to keep builds apart.
SCRATCH ?= .build
# The shared folder (contract, benchmark ceilings) is a sibling of the repository.
SHARED ?= $(CURDIR)/../shared
BENCH_SECONDS ?= 10
# Extra arguments for `tessera serve` (make run) or pytest (make e2e).
ARGS ?=

SWIFT_FLAGS := --scratch-path $(SCRATCH)
TESSERA_BIN ?= $(abspath $(SCRATCH))/debug/tessera
DEV_DB := scripts/dev-db.sh

export SWIFT SCRATCH SHARED BENCH_SECONDS TESSERA_BIN

.PHONY: help deps db db-stop db-status keys build release run demo test test-swift test-examples e2e fleet-test lint format bench bench-steps bench-allocs bench-callgrind soak fuzz clean distclean

help: ## list the targets
	@grep -E '^[a-z0-9.-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{ printf "  make %-12s %s\n", $$1, $$2 }'

deps: ## install missing Debian packages and Python modules (fast when all are present)
	@scripts/deps.sh

db: deps ## start the private PostgreSQL cluster (.data/pg, or /var/lib/tessera-dev for a checkout postgres cannot reach) and print its URL
	@$(DEV_DB) start

db-stop: ## stop the private PostgreSQL cluster
	@$(DEV_DB) stop

db-status: ## say whether the private PostgreSQL cluster runs
	@$(DEV_DB) status || true

keys: ## make .data/dev-admin-key and .data/master.key once, check them after
	@scripts/dev-keys.sh

.data/dev-admin-key .data/master.key:
	@scripts/dev-keys.sh

build: deps ## swift build (debug)
	$(SWIFT) build $(SWIFT_FLAGS)

release: deps ## swift build -c release of the server, as make bench builds it (CI runs it: the compiler has crashed only there)
	$(SWIFT) build -c release --product tessera $(SWIFT_FLAGS)

run: deps db keys build ## build, then run the server against the dev database
	@scripts/run.sh $(ARGS)

demo: deps db keys build ## run the server with a demo tenant, user and client; prints a URL to sign in and the curl line for tokens
	@scripts/demo.sh $(ARGS)

test: deps db keys ## build, run every Swift test, the examples' tests, the end-to-end suite, then the fleet test
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	$(MAKE) --no-print-directory test-swift
	$(MAKE) --no-print-directory test-examples
	$(MAKE) --no-print-directory e2e
	$(MAKE) --no-print-directory fleet-test

# The whole schema is migrated before the tests start: each harness migrates only the modules it needs, and on a
# fresh database (CI's) one that migrated the OAuth module while other tests wrote to the tables its DDL locks
# deadlocked with them (40P01, PostgreSQL's log of a failed CI run).
test-swift: ## swift test against the dev cluster's tessera_test, migrated whole first (no build step of its own)
	@url="$${TESSERA_TEST_DATABASE_URL:-$$($(DEV_DB) url tessera_test)}" && \
		"$(TESSERA_BIN)" migrate --database-url "$$url" >/dev/null && \
		TESSERA_TEST_DATABASE_URL="$$url" \
		TESSERA_TEST_MASTER_KEY_FILE="$${TESSERA_TEST_MASTER_KEY_FILE:-$(CURDIR)/.data/master.key}" \
		$(SWIFT) test --skip-build $(SWIFT_FLAGS)

test-examples: ## the example factor service's own tests (standard-library Python, no server needed)
	PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python3 -m pytest -q examples/factor-email-otp

e2e: ## run Tests/e2e against the built server (needs `make db keys` and a build)
	@TESSERA_TEST_DATABASE_URL="$${TESSERA_TEST_DATABASE_URL:-$$($(DEV_DB) url tessera_test)}" \
		scripts/e2e.sh $(ARGS)

fleet-test: ## three servers behind HAProxy: the e2e flows through it, a rolling restart and kill -9 under load
	@TESSERA_TEST_DATABASE_URL="$${TESSERA_TEST_DATABASE_URL:-$$($(DEV_DB) url tessera_test)}" \
		scripts/fleet-test.sh $(ARGS)

bench: deps db keys ## release builds, then HTTP, database and OAuth throughput against their ceilings
	@scripts/bench-http.sh
	@scripts/bench-db.sh
	@scripts/bench-oauth.sh
	@scripts/bench-mfa.sh
	@scripts/bench-steps.sh
	@scripts/bench-callgrind.sh

bench-steps: deps ## the token path's CPU steps (signatures, sealed codes, form parsing) in instructions, by callgrind
	@scripts/bench-steps.sh

bench-allocs: deps db keys ## the server's mallocs and swift_retain calls per HTTP request under load, by perf uprobes (root)
	@scripts/bench-allocs.sh

bench-callgrind: deps db keys ## the whole server's instructions per token-path operation, by callgrind, and where they go
	@scripts/bench-callgrind.sh

soak: deps db keys build ## three servers behind HAProxy under a steady native-app load for SOAK_MINUTES (15): tables, size and memory each minute, a verdict
	@TESSERA_BIN="$(TESSERA_BIN)" scripts/soak.sh

# Every Swift file the project builds, checked against .swift-format (swift-format ships with the toolchain).
FORMAT_PATHS := Sources Tests Plugins Benchmarks/Sources

lint: ## swift format lint --strict against .swift-format: any finding fails (CI runs it first)
	$(SWIFT) format lint --strict --recursive --parallel $(FORMAT_PATHS)

format: ## rewrite the Swift files as .swift-format says (then `make lint` passes, but for what it cannot fix)
	$(SWIFT) format format --in-place --recursive --parallel $(FORMAT_PATHS)

fuzz: ## libFuzzer over the parsers (Tests/Fuzz), FUZZ_SECONDS (60) per target; a crash fails it
	@scripts/fuzz.sh

clean: ## remove build folders (.build*) and test output; keeps .data
	rm -rf .build .build-* .build_* test-output

distclean: clean ## clean, stop and delete the dev and benchmark databases, remove .data and bench-results
	@$(DEV_DB) remove
	@TESSERA_PG_CLUSTER=pg-bench $(DEV_DB) remove
	rm -rf .data bench-results
