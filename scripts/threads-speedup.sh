#!/usr/bin/env bash
# --threads 2 against --threads 1 (docs/performance.md, "--threads 2 on the idle machine"):
# each run RUNS times on 1 thread and RUNS times on 2, alternated, under /usr/bin/time; prints
# every run's wall and CPU (user + system) seconds with the load average before it, then a
# table: the medians, the wall speed-up, and, from a CPU profile of one --threads 1 run, the
# share of its CPU time outside the parallel engine (the serial part: reading and building
# before the first window, the output after the last) and the Amdahl bound it puts on two
# threads, 1 / (s + (1 - s) / 2). Wall figures mean something only with a core free for each
# thread: the load average is printed beside them (docs/performance.md takes them below 2.5).
# The JSON of 1 and 2 threads is compared too (wall, CPU and speed fields aside).
# usage: scripts/threads-speedup.sh [RUNS] [RUN...]   (RUN: goal barrier alltoall booksim
#        torus-0.05 torus-0.5 fattree-0.05 fattree-0.5; default: all); LHSIM=path uses that
#        binary, else one is built.
set -euo pipefail
runs=${1:-3}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${LHSIM:-}
if [ -z "$bin" ]; then
	bin=$tmp/lhsim
	(cd "$root" && go build -o "$bin" ./cmd/lhsim)
fi
command -v jq >/dev/null || { echo "threads-speedup: needs jq" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "threads-speedup: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
"$bin" goal gen allreduce_recdoub --ranks 4096 --size 65536 --out "$tmp/ar.goal" >/dev/null

# The runs: a name and the command's arguments (--threads N --json are added).
declare -A cmd=(
	[goal]="goal --schedule $tmp/ar.goal --topology torus:16x16x16"
	[barrier]="barrier --topology torus:16x16x16 --algorithm recursive_doubling --processes 4096 --node-latency 1.0"
	[alltoall]="alltoall --sizes 8 --schemes proposed"
	[booksim]="traffic --preset booksim --topology torus:16x16x16 --packet-flits 1 --load 0.05 --jobs 1"
	[torus-0.05]="traffic --topology torus:16x16x16 --load 0.05 --warmup 1200 --measure 1500 --drain 2000"
	[torus-0.5]="traffic --topology torus:16x16x16 --load 0.5 --warmup 1200 --measure 1500 --drain 2000"
	[fattree-0.05]="traffic --topology fattree:4x6 --load 0.05 --warmup 1200 --measure 1500 --drain 2000"
	[fattree-0.5]="traffic --topology fattree:4x6 --load 0.5 --warmup 1200 --measure 1500 --drain 2000"
)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(goal barrier alltoall booksim torus-0.05 torus-0.5 fattree-0.05 fattree-0.5)

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
load() { cut -d' ' -f1 /proc/loadavg; }
strip() { jq -S 'walk(if type == "object" then del(.wall_s, .wall_seconds, .cpu_seconds, .events_per_s, .flit_hops_per_s) else . end)' "$1"; }

table=()
for name in "${names[@]}"; do
	args=${cmd[$name]:-}
	[ -n "$args" ] || { echo "threads-speedup: no run named $name" >&2; exit 2; }
	: > "$tmp/w1"; : > "$tmp/w2"; : > "$tmp/c1"; : > "$tmp/c2"; : > "$tmp/loads"
	for r in $(seq "$runs"); do
		for t in 1 2; do
			l=$(load)
			echo "$l" >> "$tmp/loads"
			# shellcheck disable=SC2086
			/usr/bin/time -f "%e %U %S" -o "$tmp/time" "$bin" $args --threads $t --json > "$tmp/out$t.json" 2> "$tmp/err$t"
			read -r wall user sys < "$tmp/time"
			cpu=$(echo "$user $sys" | awk '{print $1 + $2}')
			echo "$wall" >> "$tmp/w$t"
			echo "$cpu" >> "$tmp/c$t"
			win=$(grep -o 'windows of.*' "$tmp/err$t" | head -1 || true)
			echo "$name --threads $t, run $r: load $l, wall $wall s, CPU $cpu s${win:+; $win}"
		done
		cmp -s <(strip "$tmp/out1.json") <(strip "$tmp/out2.json") || { echo "threads-speedup: $name: the JSON of 1 and 2 threads differ" >&2; exit 1; }
	done
	# The serial part: the CPU of one --threads 1 run outside the engine's runs (the ranks'
	# coroutines run inside them) and what netsim.Split deals out to the run's threads (the
	# all-to-all's schedule, the zero-load tables' lone packets), the barrier's lone puts (on
	# one part) counted as serial.
	# shellcheck disable=SC2086
	"$bin" $args --threads 1 --json --cpuprofile "$tmp/prof" > /dev/null 2>&1
	in=$(go tool pprof -top \
		-focus='netsim\.\(\*Engine\)\.Run|iter\.Pull|netsim\.Split\.func1|booksim\.\(\*Network\)\.runWindow' \
		-ignore='net\.putLatencies' "$bin" "$tmp/prof" 2>/dev/null |
		sed -n 's/^Showing nodes accounting for [^,]*, \([0-9.]*\)% of .*/\1/p')
	serial=$(echo "${in:-0}" | awk '{printf "%.2f", 1 - $1 / 100}')
	bound=$(echo "$serial" | awk '{printf "%.2f", 1 / ($1 + (1 - $1) / 2)}')
	w1=$(median < "$tmp/w1"); w2=$(median < "$tmp/w2")
	c1=$(median < "$tmp/c1"); c2=$(median < "$tmp/c2")
	lo=$(sort -g "$tmp/loads" | head -1); hi=$(sort -g "$tmp/loads" | tail -1)
	up=$(echo "$w1 $w2" | awk '{printf "%.2f", $1 / $2}')
	table+=("| $name | $lo to $hi | $w1 ($c1) | $w2 ($c2) | ${up}x | $serial | ${bound}x |")
done
echo
echo "| run | load average | --threads 1: wall s (CPU s), medians | --threads 2 | wall speed-up | serial share of CPU (--threads 1) | Amdahl bound on 2 threads |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${table[@]}"
