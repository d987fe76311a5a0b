#!/usr/bin/env bash
# Coverage of the receive path's RTL (lhs_top) under the regression:
#   scripts/coverage.sh            (make coverage; SEEDS=n sets the randomized seeds, default 50)
# Builds the Verilator --coverage variant of the library (build/verilator-cov), runs the test
# bench on it (go test -tags lhscoverage) and the randomized suite over SEEDS more seeds, merges
# the counters every model wrote, prints line, branch and toggle coverage per module and
# writes build/coverage/: coverage.dat, summary.txt, uncovered.txt and annotated/ (the RTL
# sources with a count on every line; lines marked %000000 were never reached).
set -euo pipefail
seeds=${SEEDS:-50}
out=build/coverage
rm -rf "$out"
mkdir -p "$out/data"
echo "coverage: building the --coverage library" >&2
bash scripts/verilate.sh --coverage lhs_top
export LHSIM_COVERAGE_DIR=$PWD/$out/data
go build -o build/lhsim ./cmd/lhsim

# Test failures are reported but do not stop the report: coverage of a failing run still says
# what it reached.
status=0
echo "coverage: go test -tags lhscoverage ./testbench/" >&2
go test -count=1 -tags lhscoverage ./testbench/ >"$out/testbench.log" 2>&1 || { status=1; tail -n 20 "$out/testbench.log" >&2; }
tail -n 1 "$out/testbench.log" >&2
verilator_coverage --write "$out/testbench.dat" "$out"/data/*.dat
rm -f "$out"/data/*.dat

echo "coverage: lhsim regress --tags lhscoverage over seeds 1001..$((1000 + seeds))" >&2
build/lhsim regress --tags lhscoverage --first 1001 --seeds "$seeds" >"$out/regress.log" || status=1
cat "$out/regress.log" >&2
shopt -s nullglob
regress_dat=("$out"/data/*.dat)
if [ ${#regress_dat[@]} -gt 0 ]; then
  verilator_coverage --write "$out/regress.dat" "${regress_dat[@]}"
  rm -f "${regress_dat[@]}"
fi
verilator_coverage --write "$out/coverage.dat" "$out"/testbench.dat ${regress_dat[@]+"$out/regress.dat"}
verilator_coverage --annotate "$out/annotated" --annotate-min 1 "$out/coverage.dat" >"$out/annotate.log"

{
  echo "lhs_top coverage: go test ./testbench/ and $seeds more seeds of the randomized suite"
  build/lhsim coverage --dat "$out/coverage.dat"
} | tee "$out/summary.txt"
build/lhsim coverage --uncovered --dat "$out/coverage.dat" | sed -n '/never reached/,$p' >"$out/uncovered.txt"
echo "annotated sources: $out/annotated/  points never reached: $out/uncovered.txt"
exit $status
