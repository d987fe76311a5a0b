#!/usr/bin/env bash
# lhsim goal --qstat beside LogGOPSim's --qstat, byte for byte (docs/goal.md, "Queue
# statistics: --qstat"). It takes LogGOPSim's binaries, built by you from
# github.com/spcl/LogGOPSim:
#
#   LOGGOPSIM=/path/to/LogGOPSim TXT2BIN=/path/to/txt2bin SCHEDGEN=/path/to/schedgen \
#   [SCHEDGEN2=/path/to/Schedgen2/schedgen.py] bash scripts/qstat-compare.sh
#
# The schedules: every pattern of `lhsim goal gen` (netsim/goal's generators) and of Schedgen
# (and Schedgen2's when SCHEDGEN2 is set) at RANKS (default "4 16 64") and SIZES bytes
# (default "8 70000": eager and rendezvous), and RANDOM_SCHEDULES (default 100) random ones of
# 2 to 6 ranks made to fill the queues (many messages to few ranks, wildcard sources and tags,
# late receives, cpu and nic suffixes, irequires). Each runs through txt2bin + LogGOPSim
# --qstat and `lhsim goal --network loggp --stdsort --qstat` (--stdsort: LogGOPSim's order of
# operations freed together, without which the searches come in another order), and the six
# files of each are compared with cmp. A schedule LogGOPSim ends with queues not empty gets no
# files from either (LogGOPSim writes them only when every queue is empty; lhsim does the
# same). LHSIM is the lhsim binary (built when not given). Exit 1 when a file differs, or one
# of the two writes files the other does not.
set -uo pipefail

missing=()
for v in LOGGOPSIM TXT2BIN SCHEDGEN; do
	if [[ -z "${!v:-}" || ! -x "${!v}" ]]; then missing+=("$v"); fi
done
if ((${#missing[@]})); then
	echo "qstat-compare: skipped: set ${missing[*]} to LogGOPSim's binaries built from github.com/spcl/LogGOPSim (see the header of $0)"
	exit 0
fi
RANKS=${RANKS:-"4 16 64"}
SIZES=${SIZES:-"8 70000"}
RANDOM_SCHEDULES=${RANDOM_SCHEDULES:-100}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -z "${LHSIM:-}" ]]; then
	LHSIM=$work/lhsim
	go build -o "$LHSIM" ./cmd/lhsim || exit 1
fi
files="rq-max uq-max rq-hit uq-hit rq-miss uq-miss"

total=0 identical=0 unmatched=0 bad=0 searches=0
declare -A pat_total pat_same pat_unm
# compare NAME FILE: both simulators on FILE, the six files of each compared.
compare() {
	local name=$1 f=$2 lgs=$work/lgs lh=$work/lh
	rm -f "$lgs"-*.data "$lh"-*.data
	total=$((total + 1))
	pat_total[$name]=$((${pat_total[$name]:-0} + 1))
	if ! "$TXT2BIN" -i "$f" -o "$work/s.bin" >"$work/t2b.out" 2>&1; then
		echo "$name: txt2bin refused it: $(head -c 300 "$work/t2b.out")"
		bad=1
		return
	fi
	"$LOGGOPSIM" -f "$work/s.bin" -b --qstat "$lgs" >"$work/lgs.out" 2>&1
	"$LHSIM" goal --network loggp --stdsort --schedule "$f" --qstat "$lh" >"$work/lh.out" 2>&1
	local lh_rc=$?
	if [[ ! -e $lgs-rq-max.data ]]; then
		if [[ $lh_rc == 1 && ! -e $lh-rq-max.data ]]; then
			unmatched=$((unmatched + 1))
			pat_unm[$name]=$((${pat_unm[$name]:-0} + 1))
		else
			echo "$name: LogGOPSim wrote no files (its queues were not empty); lhsim exit $lh_rc"
			bad=1
		fi
		return
	fi
	local ok=1
	for x in $files; do
		if [[ ! -e $lh-$x.data ]]; then
			echo "$name: lhsim wrote no $x.data (exit $lh_rc: $(head -c 300 "$work/lh.out"))"
			ok=0
			break
		fi
		if ! cmp -s "$lgs-$x.data" "$lh-$x.data"; then
			echo "$name: $x.data differs:"
			diff <(tr ' ' '\n' <"$lgs-$x.data") <(tr ' ' '\n' <"$lh-$x.data") | head -5
			ok=0
		fi
	done
	if ((ok)); then
		identical=$((identical + 1))
		pat_same[$name]=$((${pat_same[$name]:-0} + 1))
		searches=$((searches + $(cat "$lgs"-rq-hit.data "$lgs"-uq-hit.data "$lgs"-rq-miss.data "$lgs"-uq-miss.data | wc -w)))
	else
		bad=1
	fi
}

lh_patterns=$("$LHSIM" goal gen 2>&1 | sed -n 's/^patterns: //p' | tr -d ,)
sg_patterns="binomialtreebcast binomialtreereduce binarytreebcast dissemination nwaydissemination
allreduce_recdoub allreduce_ring pipelinedring doublering linbarrier gather scatter linear_alltoall
linear_alltoallv random_bisect random_bisect_fd_sym"
sg2_patterns="incast outcast reduce bcast allreduce allreduce-ring allreduce-recdoub alltoall alltoallv"
for n in $RANKS; do
	for b in $SIZES; do
		for pat in $lh_patterns; do
			f=$work/s.goal
			"$LHSIM" goal gen "$pat" --ranks "$n" --size "$b" --out "$f" >/dev/null 2>&1 || continue
			compare "lhsim-gen $pat" "$f"
		done
		for pat in $sg_patterns; do
			f=$work/s.goal
			rm -f "$f"
			(cd "$work" && "$SCHEDGEN" -p "$pat" -s "$n" -d "$b" --segmentsize $(((b + 15) / 16)) -o "$f" >/dev/null 2>&1)
			[[ -s $f ]] && compare "schedgen $pat" "$f"
		done
		[[ -z ${SCHEDGEN2:-} ]] && continue
		for pat in $sg2_patterns; do
			f=$work/s.goal
			rm -f "$f"
			comm=${pat%%-*} ptrn=datasize_based
			[[ $pat == *-* ]] && ptrn=${pat#*-}
			python3 "$SCHEDGEN2" "$comm" --ptrn "$ptrn" --comm_size "$n" --datasize "$b" --output "$f" >/dev/null 2>&1
			[[ -s $f ]] && compare "schedgen2 $pat" "$f"
		done
	done
done

# Random schedules that fill the queues: messages mostly to two ranks, receives posted late
# (after a calc) or early, wildcard sources and tags, eager and rendezvous sizes, 0 bytes.
cat >"$work/gen.py" <<'PY'
import random, sys
random.seed(int(sys.argv[1]))
n = random.randint(2, 6)
# A receiving rank's wildcards: none, any source, any tag or both, the same for all its
# receives, so that every receive finds a message whatever order they meet in.
mode = {r: random.choice(["exact", "exact", "src", "tag", "both"]) for r in range(n)}
ops = {r: [] for r in range(n)}
for _ in range(random.randint(4, 40)):
    d = random.choice([0, 0, 0, 1] + list(range(n)))
    s = random.randrange(n)
    size = random.choice([0, 8, 8, 64, 1000, 70000])
    tag = random.randint(0, 3)
    ops[s].append("send %db to %d tag %d" % (size, d, tag))
    src = -1 if mode[d] in ("src", "both") else s
    t = -1 if mode[d] in ("tag", "both") else tag
    ops[d].append("recv %db from %d tag %d" % (size, src, t))
out = ["num_ranks %d" % n]
for r in range(n):
    L = ops[r]
    random.shuffle(L)
    late = random.random() < 0.5
    if late:
        L.insert(0, "calc %d" % random.choice([1000, 20000, 100000]))
    out.append("rank %d {" % r)
    for i, o in enumerate(L):
        suf = ""
        if random.random() < 0.15:
            suf += " cpu %d" % random.randint(0, 1)
        if not o.startswith("calc") and random.random() < 0.15:
            suf += " nic %d" % random.randint(0, 1)
        out.append("l%d: %s%s" % (i + 1, o, suf))
    for i in range(1, len(L)):
        if late and L[i].startswith("recv"):
            out.append("l%d requires l1" % (i + 1))
        elif random.random() < 0.1:
            out.append("l%d %s l%d" % (i + 1, random.choice(["requires", "irequires"]), random.randrange(i) + 1))
    out.append("}")
print("\n".join(out))
PY
for seed in $(seq 1 "$RANDOM_SCHEDULES"); do
	python3 "$work/gen.py" "$seed" >"$work/r.goal"
	compare "random" "$work/r.goal"
done

printf "\n%-34s %9s %9s %10s\n" "generator pattern" schedules identical "unmatched"
for k in $(printf "%s\n" "${!pat_total[@]}" | tr ' ' '~' | sort); do
	name=${k//\~/ }
	printf "%-34s %9d %9d %10d\n" "$name" "${pat_total[$name]}" "${pat_same[$name]:-0}" "${pat_unm[$name]:-0}"
done
echo "schedules: $total; all six files identical: $identical; both unmatched (no files from either): $unmatched; searches logged in the identical files: $searches"
exit $bad
