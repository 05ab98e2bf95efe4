# The project's table of contents: every user action is a target here.
# `make help` lists them. Toolchain selection:
#   P4C=p4c-bm2-ss            compile with the reference compiler instead of p4compile
#   SWITCH=simple_switch_grpc run tests on the reference switch instead of p4switch

SHELL := /bin/bash
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

VENV   := .venv
PY     := $(CURDIR)/$(VENV)/bin/python
CARGO  ?= $(shell command -v cargo || echo $(HOME)/.cargo/bin/cargo)
P4C    ?= $(CURDIR)/$(VENV)/bin/p4compile
SWITCH ?= $(CURDIR)/target/release/p4switch
BUILD  := build
# Every pytest suite names its slowest tests (over 1 s), so a slow-down shows in the log.
PYTEST := $(PY) -m pytest -q --durations=10 --durations-min=1
export P4C SWITCH

# Stamp of the Python environment: redone when a requirement or package changes.
VENV_STAMP := $(VENV)/.setup-stamp
VENV_INPUTS := requirements.txt mk/setup-venv.sh mk/p4runtime-schema.txt mk/p4runtime_stubs.py \
               mk/requirements-p4runtime-shell.txt \
               $(wildcard */pyproject.toml) switch/cli/pyproject.toml

# P4 programs of the repository that `make build` compiles.
P4_PROGRAMS := $(wildcard p4src/*.p4)
P4_OUTPUTS  := $(patsubst p4src/%.p4,$(BUILD)/%.json,$(P4_PROGRAMS))

.PHONY: help setup setup-apt build build-switch build-switch-tests build-p4 run run-two test test-compiler test-vrouter \
        test-switch test-cli test-controller p4c-corpus p4c-errors test-conformance test-p4src test-ptf test-bench bench bench-s1 bench-s2 bench-s3 bench-s4 bench-s5 bench-report bench-switch bench-fairness bench-stop-idle bench-scale bench-controller bench-learning bench-recovery bench-compiler bench-gen soak \
        test-fuzz fuzz fuzz-libfuzzer clean

help: ## List the targets (this text)
	@echo "usage: make TARGET [P4C=p4c-bm2-ss] [SWITCH=simple_switch_grpc]"
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | \
	    awk 'BEGIN {FS = ":.*## "} {printf "  %-18s %s\n", $$1, $$2}'

setup: setup-apt $(VENV_STAMP) build-switch ## Install everything: Debian packages, .venv, release build of the switch

setup-apt:
	@mk/setup-apt.sh

$(VENV_STAMP): $(VENV_INPUTS) | setup-apt
	@mk/setup-venv.sh
	@touch $@

build: setup build-p4 ## Build the switch and compile every P4 program in p4src/

build-switch: $(VENV_STAMP) ## Build the Rust workspace (p4switch) in release mode
	@$(CARGO) build --release --workspace --quiet
	@echo "build: target/release/p4switch"

build-p4: $(P4_OUTPUTS) ## Compile p4src/*.p4 with the selected P4C into build/

$(BUILD)/%.json: p4src/%.p4 $(wildcard p4src/include/*.p4) | $(VENV_STAMP)
	@mkdir -p $(BUILD)
	$(P4C) $< -o $@ --p4runtime-files $(BUILD)/$*.p4info.txtpb

run: build ## Campus network (S1) in mininet, controlled by vrouter: ping matrix, iperf3, CLI if interactive (root); RUN_ARGS="--metrics-addr 127.0.0.1:9101 --dashboard 127.0.0.1:8080"
	$(PY) topo/run_campus.py $(RUN_ARGS)

run-two: build ## Two switches joined by a trunk (topo/two-switches.yaml) in mininet: ping matrix across switches, iperf3 (root)
	$(PY) topo/run_campus.py --file topo/two-switches.yaml

# `make test`: the build steps one after another, then the suites in three lanes side by side
# (mk/test-suites.sh): the Rust test build and run (CPU, at a lower priority) beside the suites
# that mostly wait on switches and timeouts. Suites of one lane run one after another; suites
# that share a lane's neighbours use their own ports, veth names and folders. Every suite's
# output is printed whole when it ends; the last lines give each step's and suite's wall time.
TEST_BUILD := setup-apt $(VENV_STAMP) build-switch build-p4
# test-bench and test-fuzz run cargo build (bench-switch.sh, fuzz_frames): in the Rust lane,
# after the test build, so that they never wait on cargo's lock behind it.
TEST_LANES := "nice:build-switch-tests test-switch test-fuzz test-bench" \
              "test-controller test-compiler test-cli" \
              "test-conformance test-ptf test-p4src"
test: ## Run every test suite (needs root): build, then build-switch-tests test-switch test-fuzz test-bench | test-controller test-compiler test-cli | test-conformance test-ptf test-p4src
	@mk/test-suites.sh --first "$(TEST_BUILD)" $(TEST_LANES)
	@echo "test: all suites passed"

test-compiler: $(VENV_STAMP) ## p4compile unit tests, bad-input corpus, every P4 program in the repo
	$(PYTEST) compiler/tests

# The tests and examples build in the profile test-release (Cargo.toml: release without LTO, in
# target/test-release): thin LTO of each of the 33 test and example binaries took most of make test's time.
# Both targets use it, so test-switch after build-switch-tests compiles nothing.
TEST_PROFILE := --profile test-release
build-switch-tests: build-switch ## Compile the Rust workspace's tests and examples (profile test-release: release without LTO), run nothing
	@$(CARGO) test $(TEST_PROFILE) --workspace --quiet --no-run

test-switch: build-switch ## Rust unit and integration tests of the switch (profile test-release: release without LTO)
	@mkdir -p $(BUILD)
	@$(CARGO) test $(TEST_PROFILE) --workspace > $(BUILD)/cargo-test.log 2>&1 \
	    && grep -E '^ *(Running|Doc-tests) |^test result' $(BUILD)/cargo-test.log \
	    || { tail -n 60 $(BUILD)/cargo-test.log; exit 1; }

test-cli: $(VENV_STAMP) build-switch ## p4switch-cli (simple_switch_CLI commands over P4Runtime) against a real switch running vrouter.p4
	$(PYTEST) switch/cli/tests

test-controller: $(VENV_STAMP) build-switch ## p4rt client library against a real p4switch
	$(PYTEST) controller/tests

test-vrouter: $(VENV_STAMP) build-switch build-p4 ## Only the vrouter controller's tests (part of test-controller)
	$(PYTEST) controller/tests/vrouter

# p4switch's reference interpreter must give the same packets as its plan (the default):
# every case runs on both, from one compile (switch 2's files in build/conformance/switch2).
ifeq ($(SWITCH),$(CURDIR)/target/release/p4switch)
STF_SWITCHES := --switch "$(SWITCH)" --switch "$(SWITCH) --exec interp"
else
STF_SWITCHES := --switch "$(SWITCH)"
endif
test-conformance: $(VENV_STAMP) build-switch ## STF runner unit tests, then the STF corpus on the selected P4C/SWITCH (p4switch: plan and --exec interp)
	$(PYTEST) conformance/unit_tests
	$(VENV)/bin/p4stf -j 4 --all conformance/tests $(STF_SWITCHES)

P4C_SRC ?=
REF_P4C ?= $(shell command -v p4c-bm2-ss)
REF_SWITCH ?= $(shell command -v simple_switch_grpc)
p4c-corpus: $(VENV_STAMP) build-switch ## p4c's v1model STF samples on P4C+SWITCH, p4c-bm2-ss+SWITCH, p4c-bm2-ss+BMv2, P4C+BMv2 (P4C_SRC=p4c checkout) -> build/p4c-corpus.md
	@test -n "$(P4C_SRC)" || { echo "p4c-corpus: give the path of a p4c checkout: make p4c-corpus P4C_SRC=..."; exit 2; }
	$(VENV)/bin/p4stf --corpus $(P4C_SRC) -j 4 $(if $(REF_P4C),--ref-p4c $(REF_P4C)) \
	    $(if $(REF_SWITCH),--ref-switch $(REF_SWITCH)) --report $(BUILD)/p4c-corpus.md --json $(BUILD)/p4c-corpus.json

REF_P4TEST ?= $(shell command -v p4test)
p4c-errors: $(VENV_STAMP) ## p4c's error corpus (testdata/p4_16_errors, p4_16_bmv_errors) on P4C and p4test/p4c-bm2-ss: where one refuses and the other accepts (P4C_SRC=p4c checkout) -> build/p4c-errors.md
	@test -n "$(P4C_SRC)" || { echo "p4c-errors: give the path of a p4c checkout: make p4c-errors P4C_SRC=..."; exit 2; }
	$(PY) compiler/tools/p4c_errors.py --p4compile "$(P4C)" $(if $(REF_P4TEST),--p4test $(REF_P4TEST)) \
	    $(if $(REF_P4C),--p4c-bm2-ss $(REF_P4C)) --report $(BUILD)/p4c-errors.md --json $(BUILD)/p4c-errors.json \
	    $(P4C_SRC)/testdata/p4_16_errors $(P4C_SRC)/testdata/p4_16_bmv_errors

test-p4src: $(VENV_STAMP) build-switch ## vrouter.p4: documented contract and packet scenarios (STF)
	$(PYTEST) p4src/tests

test-ptf: $(VENV_STAMP) build-switch ## PTF suite of vrouter.p4 over veth pairs on the selected SWITCH
	$(PY) ptf-tests/run.py

test-bench: build ## Smoke test of the benchmark harness: tiny runs, reports written, numbers sane (root)
	$(PYTEST) bench/tests

BENCH_ARGS ?=
BENCH_PROFILE ?= --standard
BENCH_BUDGET ?= 45
bench: build ## All five scenarios (BENCH_PROFILE: --standard ~40 min, --quick, or empty for full runs) within BENCH_BUDGET minutes, then docs/results.md (root)
	$(PY) -m bench.all $(BENCH_PROFILE) --budget-minutes $(BENCH_BUDGET) $(BENCH_ARGS)

bench-s1: build ## S1 campus: RFC 2544 L2/L3 throughput by frame size, Linux and OVS beside it (BENCH_ARGS=--quick)
	$(PY) -m bench.s1 $(BENCH_ARGS)

bench-s2: build ## S2 chain of 1-3 switch-routers: iperf3 UDP sweep and TCP against Linux routers
	$(PY) -m bench.s2 $(BENCH_ARGS)

bench-s3: build ## S3 MPLS PE-P-PE: implicit against explicit null, MTU 1530/9000, CPU s/GB
	$(PY) -m bench.s3 $(BENCH_ARGS)

bench-s4: build ## S4 virtual switch: VLAN isolation, policing, CPU against Linux bridge and OVS
	$(PY) -m bench.s4 $(BENCH_ARGS)

bench-s5: build ## S5 firewall: 1-10,000 ACL rules, stateful on/off, against nftables
	$(PY) -m bench.s5 $(BENCH_ARGS)

bench-report: $(VENV_STAMP) ## docs/results.md with the studies' tables beside ours and every figure (PNG+SVG) from stored results (no new run)
	$(PY) -m bench.summary

GEN_RATE ?= 1000000
GEN_SECONDS ?= 10
bench-gen: build-switch ## Pacing proof of the generator p4gen: GEN_RATE frames/s for GEN_SECONDS into a veth, per-second counts from the kernel (root)
	$(PY) -m bench.rfc2544 --rate $(GEN_RATE) --seconds $(GEN_SECONDS)

bench-switch: build-switch build-p4 ## Where the switch's time goes: vrouter.p4 in-process and over veth (L2, L3, ACL, MPLS; 1/2/4 flows, 1/2 workers) against the kernel: zero-loss pps, CPU per packet, latency; P4Runtime inserts/s (root)
	CARGO=$(CARGO) switch/p4switch/bench/bench-switch.sh
	$(CARGO) run --release --quiet -p p4runtime-server --example bench | tee bench/results/p4runtime-inserts.txt

SCALE_ROUTES ?= 1000000
SCALE_RUNS ?= 3
bench-scale: build-switch build-p4 ## 1M IPv4 routes over P4Runtime: server entries/s, p4switch bytes/route, p4rt end to end, in-process pps 1M vs 10 routes
	@$(CARGO) build --release --quiet -p p4runtime-server --example scale_load
	$(PY) switch/runtime/bench/scale.py --routes $(SCALE_ROUTES) --runs $(SCALE_RUNS)

FAIRNESS_ARGS ?=
bench-fairness: build-switch ## Several p4switches on one machine: each offered the same overload, forwarded pps, CPU s and Jain's index per switch count (2, 3); idle CPU each (root)
	$(PY) -m bench.fairness $(FAIRNESS_ARGS)

bench-stop-idle: build-switch build-p4 ## p4switch: time from SIGTERM to exit and rebinding the gRPC port, idle CPU over 10 s with 2 ports (root)
	switch/p4switch/bench/stop-idle.sh

bench-controller: build ## vrouter apply of 10,000 routes / 1,000 ACL rules against raw p4rt inserts
	$(PY) -m vrouter.bench

bench-learning: build ## vrouter run learning 1,000 MACs over a veth: seconds and writes (root)
	$(PY) -m vrouter.bench_learning

bench-recovery: build ## Campus on veths: forwarding gap after a switch restart, frames lost over a controller restart (root)
	$(PY) -m vrouter.bench_recovery

soak: build ## vrouter.p4 at 90 % of its zero-loss rate for DURATION s (default 3600), quiet and churn windows alternating, vrouter churning 1,000 route updates/s in churn ones: memory, loss, latency per 5 min and the loss the updates add (root); WINDOW=s, PATTERN=alternate|churn-after-first, CHURN_VIA=file|description|both, RATE=pps, SCHED=batch|idle (the daemon's, the switch's control threads' and the bench writer's), SOAK_ARGS=...
	$(PY) -m bench.soak --duration $(or $(DURATION),3600) $(if $(WINDOW),--window $(WINDOW)) $(if $(CHURN_VIA),--churn-via $(CHURN_VIA)) $(if $(RATE),--rate $(RATE)) $(if $(PATTERN),--pattern $(PATTERN)) $(if $(SCHED),--controller-sched $(SCHED)) $(SOAK_ARGS)

bench-compiler: $(VENV_STAMP) ## Compile time and memory of a 1,500-line program (FABRIC=checkout: also fabric-tna's largest profile)
	$(PY) compiler/bench_compile.py $(if $(FABRIC),--fabric $(FABRIC))

test-fuzz: build ## Deterministic fuzz smoke: 300,000 frames through vrouter.p4 as vrouter configures it (coverage line), its coverage test, 1,000 P4 mutants through p4compile (10,000 malformed P4Runtime requests run in test-switch)
	@$(CARGO) build --release --quiet -p p4runtime-server --example fuzz_frames
	$(PY) fuzz/frames.py --frames 300000 --seed 1
	$(PYTEST) fuzz/tests
	$(PY) fuzz/p4_mutants.py --count 1000 --seed 1

FUZZ_SEED ?= $(shell date +%s)
FUZZ_FRAMES ?= 10000000
FUZZ_MUTANTS ?= 20000
fuzz: build-p4 ## Long fuzz runs from a new seed (FUZZ_SEED): FUZZ_FRAMES frames through vrouter.p4 (coverage: what was not reached), FUZZ_MUTANTS P4 mutants; findings in build/fuzz/
	@$(CARGO) build --release --quiet -p p4runtime-server --example fuzz_frames
	$(PY) fuzz/frames.py --frames $(FUZZ_FRAMES) --seed $(FUZZ_SEED) --timeout 36000 --verbose
	$(PY) fuzz/p4_mutants.py --count $(FUZZ_MUTANTS) --seed $(FUZZ_SEED) --coverage

FUZZ_SECONDS ?= 60
RUSTUP ?= $(shell command -v rustup || echo $(HOME)/.cargo/bin/rustup)
fuzz-libfuzzer: build-p4 ## Coverage-guided (cargo-fuzz): the engine's JSON loader, and frames through vrouter.p4 as vrouter configures it, FUZZ_SECONDS each; installs nightly and cargo-fuzz if missing
	@$(RUSTUP) toolchain list 2>/dev/null | grep -q '^nightly' || { \
	    test -x $(RUSTUP) || { echo "fuzz-libfuzzer: cargo-fuzz needs a nightly Rust toolchain and there is no rustup: install rustup (https://rustup.rs), then run: rustup toolchain install nightly --profile minimal"; exit 2; }; \
	    echo "fuzz-libfuzzer: cargo-fuzz needs a nightly Rust toolchain (make setup installs stable only); running: rustup toolchain install nightly --profile minimal"; \
	    $(RUSTUP) toolchain install nightly --profile minimal; }
	@command -v cargo-fuzz >/dev/null || test -x $(dir $(CARGO))cargo-fuzz || { \
	    echo "fuzz-libfuzzer: installing cargo-fuzz: cargo install --locked cargo-fuzz"; \
	    $(CARGO) install --locked --quiet cargo-fuzz; }
	cd switch/engine/fuzz && $(CARGO) +nightly fuzz run load -- -max_total_time=$(FUZZ_SECONDS) -max_len=20000
	@# process: the switch lives across inputs (tables, counters, buffers), so LeakSanitizer's per-input check
	@# only rescans that heap: -detect_leaks=0 runs 35x more inputs (103 -> 3,607 exec/s, 2026-11-28, load 7)
	@# process starts from fuzz_frames' valid frames (corpus/process is not committed)
	@$(CARGO) build --release --quiet -p p4runtime-server --example fuzz_frames
	target/release/examples/fuzz_frames --write-seeds switch/engine/fuzz/corpus/process
	cd switch/engine/fuzz && $(CARGO) +nightly fuzz run process -- -max_total_time=$(FUZZ_SECONDS) -max_len=1602 -detect_leaks=0

clean: ## Remove build output (keeps .venv)
	rm -rf $(BUILD) target
