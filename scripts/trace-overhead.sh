#!/usr/bin/env bash
# The tracer's cost (docs/apps.md): LAMMPS's LJ melt (tracer/testdata/in.lj) on NP ranks under
# Open MPI, RUNS times untraced and RUNS times traced, alternated; prints each run's wall, user
# and system seconds and the medians. Needs make tracer and lammps (scripts/setup.sh --mpi).
# usage: scripts/trace-overhead.sh [NP] [RUNS]
set -euo pipefail
np=${1:-16}
runs=${2:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
lib=$root/build/tracer/openmpi/liblhtrace.so
[ -f "$lib" ] || { echo "trace-overhead: $lib is not built: make tracer" >&2; exit 1; }
command -v lmp >/dev/null || { echo "trace-overhead: lmp not found: install lammps (scripts/setup.sh --mpi)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$root/tracer/testdata/in.lj" "$tmp/"
cd "$tmp"
root_flag=""
[ "$(id -u)" -eq 0 ] && root_flag=--allow-run-as-root
one() { # $1: plain or traced; prints "wall user sys"
	local extra=()
	if [ "$1" = traced ]; then
		rm -rf tr && mkdir tr
		extra=(-x LD_PRELOAD="$lib" -x LHSIM_TRACE_DIR="$tmp/tr")
	fi
	/usr/bin/time -f "%e %U %S" -o t.txt mpirun.openmpi $root_flag --oversubscribe -np "$np" -x OMP_NUM_THREADS=1 \
		"${extra[@]}" lmp -in in.lj -log none -screen none >/dev/null
	cat t.txt
}
: > plain.txt
: > traced.txt
for i in $(seq "$runs"); do
	p=$(one plain); echo "$p" >> plain.txt; echo "run $i plain  wall/user/sys s: $p"
	q=$(one traced); echo "$q" >> traced.txt; echo "run $i traced wall/user/sys s: $q"
done
calls=$(cat tr/rank-*.lht | wc -c)
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for k in 1 2 3; do
	pm=$(cut -d' ' -f$k plain.txt | median)
	tm=$(cut -d' ' -f$k traced.txt | median)
	name=$(echo wall user sys | cut -d' ' -f$k)
	echo "median $name: untraced $pm s, traced $tm s, $(awk -v a="$pm" -v b="$tm" 'BEGIN {printf "%+.1f %%", (b-a)/a*100}')"
done
echo "trace: $calls bytes over $np ranks"
