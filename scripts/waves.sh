#!/usr/bin/env bash
# make waves TEST=TestName[/Subtest] [SEED=n]: runs one test of ./testbench with WAVES=1 and
# opens the waveform this run recorded in GTKWave with its save file
# ($LHSIM_WAVES_DIR, default build/waves: <Test>_<Subtest>.fst and .gtkw).
#   scripts/waves.sh TEST
# It never presents a waveform an earlier run left: it removes the files this run writes
# before running the test.
set -uo pipefail
test_name=${1:-}
if [ -z "$test_name" ]; then
  echo "usage: make waves TEST=TestName[/Subtest] [SEED=n]" >&2
  exit 2
fi
if [ "${LHSIM_MODEL:-}" = go ]; then
  echo "waves: LHSIM_MODEL=go has no RTL to record; unset it, or use rtl or lockstep" >&2
  exit 2
fi
dir=${LHSIM_WAVES_DIR:-build/waves}
mkdir -p "$dir" build
dir=$(cd "$dir" && pwd)
export LHSIM_WAVES_DIR=$dir # the tests run in testbench/
base=$dir/${test_name//\//_}
rm -f "$base".fst "$base".gtkw "$base"_*.fst "$base"_*.gtkw
log=$(mktemp build/waves-log.XXXXXX)
trap 'rm -f "$log"' EXIT
run="^${test_name//\//\$/^}\$"
# A failing test is what waveforms are for: its status does not stop the script.
WAVES=1 "${GO:-go}" test ./testbench -count=1 -run "$run" -v >"$log" 2>&1
status=$?
tail -n 25 "$log"
top=${test_name%%/*}
if ! grep -q "^=== RUN   $top\$" "$log"; then
  if [ $status -ne 0 ] && ! grep -q '^testing: warning: no tests to run' "$log"; then
    echo "waves: go test ./testbench did not run (exit $status): see above" >&2
  else
    echo "waves: no test in ./testbench matches TEST=$test_name (-run '$run')" >&2
  fi
  exit 1
fi
if ! grep -q "^=== RUN   ${test_name}\$" "$log"; then
  echo "waves: $top has no subtest ${test_name#*/} (-run '$run')" >&2
  exit 1
fi
save=""
for f in "$base.gtkw" $(ls -t "$base"_*.gtkw 2>/dev/null); do
  if [ -f "$f" ]; then
    save=$f
    break
  fi
done
if [ -z "$save" ]; then
  echo "waves: $test_name ran but recorded no waveform in $dir (only devices opened with newDUT record one)" >&2
  exit 1
fi
dump=${save%.gtkw}.fst
echo "gtkwave $dump $save"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec gtkwave "$dump" "$save"
fi
echo "waves: no display here; open the files above where there is one"
