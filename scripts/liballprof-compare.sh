#!/usr/bin/env bash
# lhsim goal convert beside Schedgen's conversion (--ptrn trace) of liballprof trace directories,
# both run in the LogGOPS model (docs/apps.md, "LogGOPSim's traces"). It takes binaries you
# built yourself:
#
#   LOGGOPSIM=.../LogGOPSim TXT2BIN=.../txt2bin SCHEDGEN=.../schedgen \
#   [ATLAHS_SCHEDGEN=.../atlahs/goal_gen/hpc/Schedgen/schedgen] \
#   bash scripts/liballprof-compare.sh DIR...
#
# (SCHEDGEN from github.com/spcl/LogGOPSim, ATLAHS_SCHEDGEN from github.com/spcl/atlahs.) Per
# trace directory (one liballprof trace per rank, PREFIX-RANK.txt) it prints the end time
# (ns, LogGOPSim's default parameters) of:
#   lhsim        lhsim goal convert DIR, then lhsim goal --network loggp --stdsort (Open MPI 4.1's
#                tuned collectives)
#   lhsim-sg     the same with Schedgen's collective algorithms as near as lhsim has them
#                (--collectives barrier=bruck,allreduce=recursive_doubling,bcast=binomial,reduce=binomial)
#   schedgen     schedgen -p trace, txt2bin, LogGOPSim (or why it did not run)
#   atlahs       ATLAHS's Schedgen the same way
#   p2p lhsim    point to point only: the trace without its collective calls, through lhsim
#   p2p schedgen schedgen --traces-nocolls, through LogGOPSim (ATLAHS's alike in p2p atlahs)
# and lhsim goal convert's speed in calls per CPU second. Schedgen reads its traces in place;
# the p2p traces are written to a temporary directory. LHSIM is the lhsim binary (built when
# not given). At the end: on how many traces the point-to-point-only end times are the same
# (docs/apps.md explains the ones that are not). Exit 1 when lhsim fails on a trace it reads.
set -uo pipefail

missing=()
for v in LOGGOPSIM TXT2BIN SCHEDGEN; do
	if [[ -z "${!v:-}" || ! -x "${!v}" ]]; then missing+=("$v"); fi
done
if ((${#missing[@]})); then
	echo "liballprof-compare: skipped: set ${missing[*]} to binaries built from github.com/spcl/LogGOPSim (see the header of $0)"
	exit 0
fi
if (($# == 0)); then
	echo "liballprof-compare: skipped: give liballprof trace directories (TRACES=\"DIR...\" for make)"
	exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -z "${LHSIM:-}" ]]; then
	LHSIM=$work/lhsim
	go build -o "$LHSIM" ./cmd/lhsim || exit 1
fi
sgcolls="barrier=bruck,allreduce=recursive_doubling,bcast=binomial,reduce=binomial"
colls='MPI_(Barrier|Bcast|Allreduce|Iallreduce|Reduce|Scan|Exscan|Gather|Gatherv|Scatter|Scatterv|Allgather|Allgatherv|Alltoall|Alltoallv|Reduce_scatter|Reduce_scatter_block):'

# lh DIR [ARGS]: lhsim's end time (ns) for the trace in DIR, or why there is none.
lh() {
	local dir=$1
	shift
	"$LHSIM" goal convert "$dir" --out "$work/lh.goal" "$@" >"$work/conv.out" 2>&1 || { echo "refused"; return; }
	"$LHSIM" goal --network loggp --stdsort --schedule "$work/lh.goal" --json >"$work/run.out" 2>&1
	local e
	e=$(grep -o '"end_ns": *[0-9.]*' "$work/run.out" | awk '{printf "%.0f", $NF}')
	grep -q '"unmatched"' "$work/run.out" && e=unmatched
	echo "${e:-failed}"
}

# sg SCHEDGEN FILE0 [ARGS]: Schedgen's conversion of the trace whose rank 0 file is FILE0, run in
# LogGOPSim: its end time (ns), or why there is none.
sg() {
	local bin=$1 f0=$2
	shift 2
	[[ -x $bin ]] || { echo "-"; return; }
	rm -f "$work/sg.goal"
	(cd "$work" && "$bin" -p trace --traces "$f0" -o "$work/sg.goal" "$@" >"$work/sg.out" 2>&1)
	[[ -s $work/sg.goal ]] || { echo "no-output"; return; }
	"$TXT2BIN" -i "$work/sg.goal" -o "$work/sg.bin" >"$work/t2b.out" 2>&1 || { echo "txt2bin-refused"; return; }
	local e
	e=$("$LOGGOPSIM" -f "$work/sg.bin" -b 2>&1 | grep -o 'Maximum finishing time at host [0-9]*: [0-9]*' | awk '{print $NF}')
	echo "${e:-unmatched}"
}

bad=0 same=0 n=0
printf "%-22s %5s %8s %14s %14s %14s %14s %14s %14s %14s %12s\n" trace ranks calls lhsim lhsim-sg schedgen atlahs \
	"p2p lhsim" "p2p schedgen" "p2p atlahs" "calls/CPU s"
for dir in "$@"; do
	dir=${dir%/}
	f0=$(ls "$dir"/*-0.txt "$dir"/*-0.dat 2>/dev/null | head -1)
	if [[ -z $f0 ]]; then
		echo "$dir: no PREFIX-0.txt"
		bad=1
		continue
	fi
	f0=$(readlink -f "$f0")
	ranks=$(ls "$dir" | grep -cE -- '-[0-9]+\.(txt|dat)$')
	calls=$(cat "$dir"/* | grep -c '^MPI_')
	/usr/bin/time -f "%U %S" -o "$work/time" "$LHSIM" goal convert "$dir" --out "$work/speed.goal" >/dev/null 2>&1
	speed=$(tail -1 "$work/time" | awk -v c="$calls" '{s=$1+$2; if (s>0) printf "%.3g", c/s; else print "-"}')
	a=$(lh "$dir")
	b=$(lh "$dir" --collectives "$sgcolls")
	c=$(sg "$SCHEDGEN" "$f0")
	d=$(sg "${ATLAHS_SCHEDGEN:-}" "$f0")
	p=$work/p2p
	rm -rf "$p"
	mkdir -p "$p"
	for f in "$dir"/*; do grep -Ev "^$colls" "$f" >"$p/$(basename "$f")"; done
	e=$(lh "$p")
	g=$(sg "$SCHEDGEN" "$f0" --traces-nocolls)
	h=$(sg "${ATLAHS_SCHEDGEN:-}" "$f0" --traces-nocolls)
	n=$((n + 1))
	[[ $e == "$g" ]] && same=$((same + 1))
	[[ $a == failed || $e == failed ]] && bad=1
	printf "%-22s %5s %8s %14s %14s %14s %14s %14s %14s %14s %12s\n" "$(basename "$dir")" "$ranks" "$calls" "$a" "$b" "$c" "$d" "$e" "$g" "$h" "$speed"
done
echo "traces: $n; point-to-point end times the same in lhsim and Schedgen: $same"
exit $bad
