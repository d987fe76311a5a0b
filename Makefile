# lhsim: the targets users of RTL projects expect. Generated files go under build/.
SHELL := /bin/bash
GO ?= go
RTL := $(wildcard rtl/*.v)
# Headers the RTL includes (rtl/lhs_regs.vh, generated from hw/contract.json); tools get -Irtl.
RTL_INC := $(wildcard rtl/*.vh)
# Each Verilated top has a bridge verilator/<top>_bridge.cpp and a Go package that links it.
VTOPS := lhs_top $(patsubst verilator/%_bridge.cpp,%,$(filter-out verilator/lhs_top_bridge.cpp,$(wildcard verilator/*_bridge.cpp)))
VLIBS := $(foreach t,$(VTOPS),build/verilator/$(t)/lib$(t).a)
LINT_TOPS := $(basename $(notdir $(RTL)))

.PHONY: all setup rtl test lint demo bench soak synth clean plugin generate
.PHONY: tracer tracer-if-mpi traces
.PHONY: waves regress coverage fuzz synth-check test-slurm formal formal-hash edges goal-compare qstat-compare liballprof-compare papers booksim-compare bench-net
all: rtl tracer-if-mpi

setup:
	@bash scripts/setup.sh

rtl: setup $(VLIBS)

define VERILATE_RULE
build/verilator/$(1)/lib$(1).a: $(RTL) $(RTL_INC) verilator/$(1)_bridge.cpp $(wildcard verilator/*.h) scripts/verilate.sh
	@echo "verilate $(1)"
	@bash scripts/verilate.sh $(1)
endef
$(foreach t,$(VTOPS),$(eval $(call VERILATE_RULE,$(t))))
# hash_match's second configuration includes the first's bridge.
build/verilator/hash_match_small/libhash_match_small.a: verilator/hash_match_bridge.cpp

# lhsim's MPI tracer (docs/apps.md): the PMPI library lhsim goal record preloads, built once per
# MPI library installed (scripts/setup.sh --mpi installs Open MPI and MPICH); make test needs
# neither. tracer/c/lht_wrappers.c is generated from tracer/c/calls.txt (go generate ./tracer).
TRACER_SRC := tracer/c/lht.c tracer/c/lht_wrappers.c tracer/c/lht.h
TRACER_CFLAGS := -O2 -fPIC -shared -Wall -Wextra
TRACER_MPIS = $(foreach m,openmpi mpich,$(if $(shell echo '\#include <mpi.h>' | mpicc.$(m) -E - >/dev/null 2>&1 && echo y),$(m)))

build/tracer/openmpi/liblhtrace.so: $(TRACER_SRC)
	@mkdir -p $(@D)
	@echo "tracer openmpi"
	@# Open MPI's Fortran library calls PMPI_* itself: its entry points are the tracer's too.
	mpicc.openmpi $(TRACER_CFLAGS) -DLHT_FORTRAN -o $@ tracer/c/lht.c tracer/c/lht_wrappers.c

build/tracer/mpich/liblhtrace.so: $(TRACER_SRC)
	@mkdir -p $(@D)
	@echo "tracer mpich"
	@# MPICH's Fortran bindings call MPI_*: the C wrappers see them, Fortran ones would count twice.
	mpicc.mpich $(TRACER_CFLAGS) -o $@ tracer/c/lht.c tracer/c/lht_wrappers.c

tracer:
	@test -n "$(TRACER_MPIS)" || { echo "make tracer: neither Open MPI nor MPICH is installed (with its headers): bash scripts/setup.sh --mpi" >&2; exit 1; }
	@$(MAKE) --no-print-directory $(foreach m,$(TRACER_MPIS),build/tracer/$(m)/liblhtrace.so)

# The matcher study's real programs (docs/apps.md, "The study on real programs"): LAMMPS (two
# examples), HPCC and NWChem recorded at 8, 16 and 64 ranks under Open MPI and converted to
# build/traces/NAME.RANKS.goal.gz, which lhsim matchers --workloads NAME.RANKS (or apps) runs.
# Not in make test: about 45 minutes on the 2-core machine (docs/apps.md). TRACES_RANKS and
# TRACES_PROGRAMS choose.
traces: rtl tracer
	$(GO) build -o build/bin/lhsim ./cmd/lhsim
	bash scripts/traces.sh $(TRACES_RANKS) $(if $(TRACES_PROGRAMS),-- $(TRACES_PROGRAMS))

# make builds the tracer for the MPI libraries present, and says nothing when there is none.
tracer-if-mpi:
	@$(if $(TRACER_MPIS),$(MAKE) --no-print-directory tracer,true)

# The out-of-process bridge's plugin binary (docs/plugin.md); go build decides what is stale.
plugin: rtl
	$(GO) build -o build/bin/lhsim-plugin ./cmd/lhsim-plugin

# JUNIT=path also writes the results as JUnit XML (lhsim junit reads go test -json).
# Every package (formal/ proves the fast formal properties: docs/formal.md), then the regression
# suite again with the RTL in its own process.
test: rtl plugin
ifdef JUNIT
	set -o pipefail; $(GO) test -json ./... $(GOTESTFLAGS) | $(GO) run ./cmd/lhsim junit --out $(JUNIT)
else
	$(GO) test ./... $(GOTESTFLAGS)
endif
	LHSIM_BRIDGE=plugin $(GO) test ./testbench/ $(GOTESTFLAGS)

# --slurm against a real one-node Slurm on this machine (scripts/slurm-local.sh installs and
# starts it, and stops it afterwards unless it was already up); here the Slurm tests fail
# rather than skip when no Slurm answers. docs/cluster.md.
test-slurm: rtl plugin
	REQUIRE_SLURM=1 bash scripts/slurm-local.sh run -- bash -c \
		'$(GO) test ./slurm/... $(GOTESTFLAGS) && $(GO) test -run Slurm ./cmd/lhsim/ $(GOTESTFLAGS)'

# Every formal proof of the receive path (docs/formal.md): yosys-smtbmc with cvc5, a table of
# property, module, method, depth, result and seconds; exit 1 when a proof does not end as it
# expects. make test runs the fast ones (formal/formal_test.go); FORMALFLAGS adds flags
# (-j 2, --run REGEXP, --timeout 20m).
formal: setup
	$(GO) run ./cmd/lhsim formal $(FORMALFLAGS)

# Only the hashed matcher's proofs and controls (docs/formal.md, "Other designs: harnesses"):
# its answers by induction take the longest of all.
formal-hash: setup
	$(GO) run ./cmd/lhsim formal --run hash_match $(FORMALFLAGS)

# The register map, entry layout and their copies for the RTL, the C bridge and the docs, from
# hw/contract.json (make lint fails when one of them is stale).
generate:
	$(GO) generate ./hw

lint: rtl
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) run ./hw/gen -check
	$(GO) run ./tracer/gen -check -dir tracer/c
	$(GO) mod tidy -diff
	@for m in $(LINT_TOPS); do verilator --lint-only -Wall -Irtl --top-module $$m $(RTL) || exit 1; done
	@# lhs_rx as Table 1 synthesizes it besides the default: without LHS, and with narrow counters.
	@for g in "-GLHS=0" "-GENTRIES=64 -GCNT_W=7" "-GENTRIES=512 -GCNT_W=10"; do \
		verilator --lint-only -Wall -Irtl --top-module lhs_rx $$g $(RTL) || exit 1; done
	@# hash_match at the corners the study and the proofs build: one bank, one bin, latency 2.
	@for g in "-GBANKS=1 -GBINS=1 -GENTRIES=4" "-GRD_LAT=2 -GBANKS=4 -GENTRIES=64 -GBINS=16" "-GENTRIES=4096 -GBINS=256"; do \
		verilator --lint-only -Wall -Irtl --top-module hash_match $$g $(RTL) || exit 1; done
	@mkdir -p build/iverilog && iverilog -g2005 -Wall -Irtl -o build/iverilog/lhs_top.vvp -s lhs_top $(RTL)
	@echo "lint: clean"

demo: rtl
	$(GO) run ./cmd/lhsim demo

bench: rtl
	$(GO) test -run '^$$' -bench . -benchtime 2s ./testbench/... ./experiment/... ./netsim/...

# The network simulator's speed (docs/performance.md): events and flit-hops per CPU second and
# heap per node, both routers, 512 and 4,096 nodes, light load and past saturation, 1- and
# 16-flit packets. BENCHNETFLAGS adds flags (--json, --topologies torus:8x8x8, --measure 1000).
bench-net: rtl
	$(GO) run ./cmd/lhsim bench-net $(BENCHNETFLAGS)

# The papers' headline figures that take minutes (Ohno et al.'s 16x16x16 all-to-all):
# docs/alltoall.md.
papers:
	PAPERS=1 $(GO) test -run TestPaperHeadline -timeout 60m -v ./netsim/alltoall/

soak: rtl
	SOAK=1 $(GO) test -run TestSoak -timeout 60m -v ./testbench/

# Table 1: Yosys on rtl/*.v for xc2vp and xc7, reports into synth-reports/ (a few minutes;
# `lhsim area -cached` prints them again without Yosys).
synth: rtl
	$(GO) run ./cmd/lhsim area -write

# The whole sweep again, into a temporary folder: every report must equal the checked-in one
# (about 9 minutes on 2 cores; CI runs it after make test).
synth-check: setup
	LHSIM_SYNTH_CHECK=1 $(GO) test -count=1 -run TestFullSweepReproducesReports -timeout 40m -v ./area/

# make waves TEST=TestScoreboardRandom/3: run one test with WAVES=1 and open its waveform in
# GTKWave with its save file (build/waves/<Test>_<Subtest>.fst and .gtkw; scripts/waves.sh).
waves: rtl
	@$(if $(SEED),SEED=$(SEED) )GO=$(GO) bash scripts/waves.sh '$(TEST)'

# The randomized tests over SEEDS seeds, a process per seed on every core (JUNIT=path too).
SEEDS ?= 200
regress: rtl
	$(GO) run ./cmd/lhsim regress --seeds $(SEEDS)$(if $(JUNIT), --junit $(JUNIT))

# Line, branch and toggle coverage of lhs_top under the test bench and the randomized suite.
coverage: rtl
	SEEDS=$(if $(filter command line,$(origin SEEDS)),$(SEEDS),50) bash scripts/coverage.sh

# Every Fuzz target of the repository, one after another, FUZZTIME each (go test -fuzz takes
# one target in one package at a time). Targets are found with go test -list, so new ones need
# no edit here; their seed corpora (testdata/fuzz/FuzzXxx) also run in every make test.
FUZZTIME ?= 30s
# Every edge of bad input (docs/bad-input.md), on the built binary (build/bin/lhsim, beside
# build/bin/lhsim-plugin and build/tracer) run from a folder outside the source tree: every
# numeric flag of every command at NaN, +-Inf, -1, 0, 1, 1e30 and an overflowing integer
# under a memory limit (TestEdgesSweep; make test runs it too, on the test binary), every
# command x every pair of its path flags (TestEdgesPaths), every knob under every preset at
# values in and out of range (TestEdgesKnobs), every command that sizes its run under every
# limit (ulimit -v, a cgroup v1 and v2, GOMEMLIMIT: TestEdgesLimits), a waveform on a full
# file system (TestWaveformOnAFullFileSystem, as root); the sweeps' counts of runs and exits
# are printed at the end (build/edges-summary.txt). Then the fuzzers of the file inputs
# (checkpoints of lhsim run and lhsim ib run, Yosys reports, topology strings), each for a
# count of inputs (about 20 s each on an idle machine; EDGESFUZZ=30s or =5000x sets all four).
# Counts, not seconds: with a duration, Go 1.26's fuzz coordinator can fail at the deadline
# with "context deadline exceeded" and no input when its workers are starved of CPU
# (go.dev/issue/75804, fixed in Go 1.27); a count has no deadline to race. CI runs it (.ci/run).
EDGESFUZZ ?=
edges: rtl plugin
	$(GO) build -o build/bin/lhsim ./cmd/lhsim
	@rm -f build/edges-summary.txt
	@LHSIM_EDGES=1 LHSIM_BIN=$(CURDIR)/build/bin/lhsim LHSIM_EDGES_SUMMARY=$(CURDIR)/build/edges-summary.txt \
		$(GO) test -count=1 -timeout 30m -run '^(TestEdgesSweep|TestEdgesPaths|TestEdgesKnobs|TestEdgesLimits|TestWaveformOnAFullFileSystem)$$' ./cmd/lhsim/; \
		status=$$?; cat build/edges-summary.txt; exit $$status
	$(GO) test -run '^$$' -fuzz '^FuzzCheckpoint$$' -fuzztime $(or $(EDGESFUZZ),3000x) ./session/
	$(GO) test -run '^$$' -fuzz '^FuzzRestoreContext$$' -fuzztime $(or $(EDGESFUZZ),800000x) ./netsim/ib/
	$(GO) test -run '^$$' -fuzz '^FuzzParseStat$$' -fuzztime $(or $(EDGESFUZZ),250000x) ./area/
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(or $(EDGESFUZZ),300000x) ./netsim/fabric/

fuzz: rtl
	@mkdir -p build; set -o pipefail; $(GO) test -list '^Fuzz' ./... | \
		awk '/^Fuzz/ { t[n++] = $$1; next } /^ok / { for (i = 0; i < n; i++) print $$2, t[i]; n = 0 }' > build/fuzz-targets.txt
	@set -e; while read -r pkg t; do \
		echo "fuzz $$t in $$pkg for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) $$pkg < /dev/null; \
	done < build/fuzz-targets.txt

# lhsim goal --network loggp beside LogGOPSim on schedules from LogGOPSim's generators
# (docs/goal.md). Give the peers you built: LOGGOPSIM=, TXT2BIN=, SCHEDGEN= and optionally
# SCHEDGEN2= (Schedgen2/schedgen.py); RANKS= and SIZES= choose the grid. Skips without them.
goal-compare:
	bash scripts/goal-compare.sh

# lhsim goal --qstat's six files against LogGOPSim's --qstat, byte for byte, on the schedules of
# lhsim goal gen, Schedgen, Schedgen2 and random ones (docs/goal.md). Takes LOGGOPSIM, TXT2BIN,
# SCHEDGEN (and SCHEDGEN2) as goal-compare does; skips without them.
qstat-compare:
	bash scripts/qstat-compare.sh

# lhsim goal convert beside Schedgen's conversion of liballprof traces (docs/apps.md, "LogGOPSim's
# traces"): LOGGOPSIM, TXT2BIN, SCHEDGEN (and ATLAHS_SCHEDGEN) as goal-compare takes them, TRACES
# the trace directories; skips without them.
liballprof-compare:
	bash scripts/liballprof-compare.sh $(TRACES)

clean:
	rm -rf build verilator/zz_*_libhash.go verilator/*/zz_*_libhash.go

# lhsim traffic --preset booksim against a BookSim2 binary you built (BOOKSIM=/path/to/booksim;
# without it the script says so and stops): saturation, latency, zero-load and speed side by
# side (docs/network.md). CONFIGS picks some of torus8-1 torus8-16 fattree-1 fattree-16
# torus16-1 torus16-16 (default all; the 4,096-node ones take hours of BookSim2).
booksim-compare:
	$(GO) build -o build/bin/lhsim ./cmd/lhsim
	BOOKSIM="$(BOOKSIM)" LHSIM=build/bin/lhsim python3 scripts/booksim-compare.py $(CONFIGS)
