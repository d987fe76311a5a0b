#!/usr/bin/env bash
# Makes docs/timeline-speedscope.png: the 8-rank allreduce of docs/timeline.md written with
# --timeline and opened in speedscope (npm; Perfetto's UI and trace processor have no npm
# package, and the npm registry is the one this machine reaches) in headless Chromium
# (apt-get install chromium). Not a test: the files are checked against the format's
# specification by timeline.Validate in the tests.
#   scripts/timeline-screenshot.sh [OUT.png]
set -euo pipefail
png=$(realpath -m "${1:-docs/timeline-speedscope.png}")
dir=build/timeline-screenshot
rm -rf "$dir" && mkdir -p "$dir/site"
npm install --prefix "$dir" --no-audit --no-fund speedscope@1.25.0 >/dev/null
cp -r "$dir/node_modules/speedscope/dist/release/." "$dir/site/"
go run ./cmd/lhsim goal gen allreduce_recdoub --ranks 8 --size 4096 --out "$dir/ar8.goal"
go run ./cmd/lhsim goal --schedule "$dir/ar8.goal" --timeline "$dir/site/ar8.json" >/dev/null
port=${PORT:-8765}
python3 -m http.server "$port" --bind 127.0.0.1 -d "$dir/site" >/dev/null 2>&1 &
srv=$!
trap 'kill $srv' EXIT
sleep 1
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1600,1000 \
  --virtual-time-budget=8000 --screenshot="$png" "http://127.0.0.1:$port/index.html#profileURL=ar8.json" 2>/dev/null
echo "$png"
