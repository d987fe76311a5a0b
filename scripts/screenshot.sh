#!/usr/bin/env bash
# Makes docs/gtkwave.png: the default trace scenario (lhsim trace) opened in GTKWave with its
# save file, on a virtual X server, captured with ImageMagick's import.
#   scripts/screenshot.sh [OUT.png]
set -euo pipefail
png=${1:-docs/gtkwave.png}
dir=build/screenshot
rm -rf "$dir"
go run ./cmd/lhsim trace --dir "$dir" >/dev/null
xvfb-run -a -s "-screen 0 1600x1200x24" bash -c '
  gtkwave "$1/lhsim.fst" "$1/lhsim.gtkw" >"$1/gtkwave.log" 2>&1 & pid=$!
  sleep 6
  import -window root "$2"
  kill $pid' _ "$dir" "$png"
echo "$png"
