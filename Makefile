# lhsim: the targets users of RTL projects expect. Generated files go under build/.
SHELL := /bin/bash
GO ?= go
RTL := $(wildcard rtl/*.v)
# Each Verilated top has a bridge verilator/<top>_bridge.cpp and a Go package that links it.
VTOPS := lhs_top $(patsubst verilator/%_bridge.cpp,%,$(filter-out verilator/lhs_top_bridge.cpp,$(wildcard verilator/*_bridge.cpp)))
VLIBS := $(foreach t,$(VTOPS),build/verilator/$(t)/lib$(t).a)
LINT_TOPS := $(basename $(notdir $(RTL)))

.PHONY: all setup rtl test lint demo bench soak synth clean
all: rtl

setup:
	@bash scripts/setup.sh

rtl: setup $(VLIBS)

define VERILATE_RULE
build/verilator/$(1)/lib$(1).a: $(RTL) verilator/$(1)_bridge.cpp $(wildcard verilator/*.h) scripts/verilate.sh
	@echo "verilate $(1)"
	@bash scripts/verilate.sh $(1)
endef
$(foreach t,$(VTOPS),$(eval $(call VERILATE_RULE,$(t))))

test: rtl
	$(GO) test ./... $(GOTESTFLAGS)

lint: rtl
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	@for m in $(LINT_TOPS); do verilator --lint-only -Wall --top-module $$m $(RTL) || exit 1; done
	@mkdir -p build/iverilog && iverilog -g2005 -Wall -o build/iverilog/lhs_top.vvp -s lhs_top $(RTL)
	@echo "lint: clean"

demo: rtl
	$(GO) run ./cmd/lhsim demo

bench: rtl
	$(GO) test -run '^$$' -bench . -benchtime 2s ./testbench/... ./experiment/...

soak: rtl
	SOAK=1 $(GO) test -run TestSoak -timeout 60m -v ./testbench/

# Table 1: Yosys on rtl/*.v for xc2vp and xc7, reports into synth-reports/ (a few minutes;
# `lhsim area -cached` prints them again without Yosys).
synth: rtl
	$(GO) run ./cmd/lhsim area -write

clean:
	rm -rf build verilator/zz_*_libhash.go verilator/*/zz_*_libhash.go
