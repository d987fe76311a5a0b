#!/usr/bin/env bash
# lhsim goal --network loggp beside LogGOPSim, on the schedules LogGOPSim's own generators
# write (docs/goal.md). It takes peers you have built yourself (github.com/spcl/LogGOPSim):
#
#   LOGGOPSIM=/path/to/LogGOPSim TXT2BIN=/path/to/txt2bin \
#   SCHEDGEN=/path/to/schedgen [SCHEDGEN2=/path/to/Schedgen2/schedgen.py] \
#   bash scripts/goal-compare.sh
#
# RANDOM_SCHEDULES=N adds N random schedules. RANKS and SIZES (bytes) choose the grid, PATTERNS (names as in the table) the patterns;
# LHSIM is the lhsim binary (built when not given). The quadratic patterns (all-to-all) stop
# at 256 ranks, the ring allreduce at 1,024: LogGOPSim takes minutes beyond.
# For every schedule it prints LogGOPSim's end time, lhsim's with --stdsort (LogGOPSim's order
# of operations freed together) and their difference, lhsim's in its default order, and the CPU seconds, peak
# memory (MiB) and operations per CPU second of each: LogGOPSim's count txt2bin and the run,
# lhsim's its parse and run. Exit 1 when an end time differs by more than 1 % or a schedule
# one simulator runs the other does not.
set -uo pipefail

missing=()
for v in LOGGOPSIM TXT2BIN SCHEDGEN; do
	if [[ -z "${!v:-}" || ! -x "${!v}" ]]; then missing+=("$v"); fi
done
if ((${#missing[@]})); then
	echo "goal-compare: skipped: set ${missing[*]} to LogGOPSim's binaries built from github.com/spcl/LogGOPSim (see the header of $0)"
	exit 0
fi
RANKS=${RANKS:-"8 64 512 4096"}
SIZES=${SIZES:-"1 64 4096 65536"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -z "${LHSIM:-}" ]]; then
	LHSIM=$work/lhsim
	go build -o "$LHSIM" ./cmd/lhsim || exit 1
fi

# The patterns, and the most ranks at which each is run (quadratic ones stop earlier).
sg_patterns="binomialtreebcast:4096 binomialtreereduce:4096 binarytreebcast:4096 dissemination:4096
nwaydissemination:4096 allreduce_recdoub:4096 allreduce_ring:1024 pipelinedring:512 doublering:512
linbarrier:4096 gather:4096 scatter:4096 linear_alltoall:256 linear_alltoallv:256 random_bisect:4096
random_bisect_fd_sym:4096"
sg2_patterns="incast:4096 outcast:4096 reduce:4096 bcast:4096 allreduce:4096 allreduce-ring:1024
allreduce-recdoub:4096 alltoall:256 alltoallv:256"

cpu() { # runs "$@", prints "user+sys maxrss_kib" on fd 3
	/usr/bin/time -f "%U %S %M" -o "$work/time" "$@" >"$work/out" 2>"$work/err"
	local rc=$?
	read -r u s m < <(tail -n 1 "$work/time") || { u=0 s=0 m=0; }
	awk -v u="$u" -v s="$s" -v m="$m" 'BEGIN {print u + s, m}' >&3
	return $rc
}

printf "%-10s %-22s %5s %6s %9s %16s %16s %8s %16s %7s %7s %6s %6s %10s %10s\n" generator pattern ranks bytes ops \
	"LogGOPSim ns" "lhsim stdsort ns" "diff %" "lhsim ns" "LGS s" "lhsim s" "LGS MB" "lh MB" "LGS op/s" "lhsim op/s"
bad=0 runs=0 worst=0
for gen in schedgen schedgen2; do
	if [[ $gen == schedgen2 && -z "${SCHEDGEN2:-}" ]]; then
		echo "(Schedgen2 skipped: set SCHEDGEN2 to Schedgen2/schedgen.py)"
		continue
	fi
	list=$sg_patterns
	[[ $gen == schedgen2 ]] && list=$sg2_patterns
	for entry in $list; do
		pat=${entry%%:*} maxr=${entry##*:}
		[[ -n ${PATTERNS:-} && " $PATTERNS " != *" $pat "* ]] && continue
		for n in $RANKS; do
			((n > maxr)) && continue
			for b in $SIZES; do
				f=$work/s.goal
				rm -f "$f"
				if [[ $gen == schedgen ]]; then
					seg=$(((b + 15) / 16))
					(cd "$work" && "$SCHEDGEN" -p "$pat" -s "$n" -d "$b" --segmentsize "$seg" -o "$f" >/dev/null 2>&1)
				else
					comm=${pat%%-*} ptrn=datasize_based
					[[ $pat == *-* ]] && ptrn=${pat#*-}
					python3 "$SCHEDGEN2" "$comm" --ptrn "$ptrn" --comm_size "$n" --datasize "$b" --output "$f" >/dev/null 2>&1
				fi
				if [[ ! -s $f ]]; then
					printf "%-10s %-22s %5s %6s  (the generator wrote nothing)\n" $gen "$pat" "$n" "$b"
					continue
				fi
				ops=$(grep -cE '^ *([A-Za-z][A-Za-z0-9_]* *: *)?(send|recv|calc)' "$f")
				runs=$((runs + 1))
				lgs_ok=1
				exec 3>"$work/t1"
				cpu "$TXT2BIN" -i "$f" -o "$work/s.bin" || lgs_ok=0
				((lgs_ok)) && { cpu "$LOGGOPSIM" -f "$work/s.bin" -b || lgs_ok=0; }
				exec 3>&-
				lgs_end=$(grep -o 'Maximum finishing time at host [0-9]*: [0-9]*' "$work/out" | awk '{print $NF}')
				[[ -z $lgs_end ]] && lgs_ok=0
				lgs_s=$(awk '{s+=$1} END {print s}' "$work/t1")
				lgs_m=$(awk '{if ($2>m) m=$2} END {printf "%.0f", m/1024}' "$work/t1")
				# lhsim in written order (its default), then in LogGOPSim's order (--stdsort).
				exec 3>"$work/t2"
				cpu "$LHSIM" goal --network loggp --schedule "$f" --json
				exec 3>&-
				lhw_end=$(grep -o '"end_ns": *[0-9.]*' "$work/out" | awk '{print $NF}')
				[[ -s $work/err ]] && lhw_end=unmatched
				[[ -z $lhw_end ]] && lhw_end=failed
				read -r lh_s lh_m <"$work/t2"
				exec 3>/dev/null
				lh_ok=1
				cpu "$LHSIM" goal --network loggp --stdsort --schedule "$f" --json || lh_ok=0
				exec 3>&-
				lh_end=$(grep -o '"end_ns": *[0-9.]*' "$work/out" | awk '{print $NF}')
				[[ -z $lh_end ]] && lh_ok=0
				lh_m=$((lh_m / 1024))
				if ((!lgs_ok || !lh_ok)); then
					printf "%-10s %-22s %5s %6s %9s  LogGOPSim ran: %s, lhsim --stdsort ran: %s, lhsim in written order: %s\n" $gen "$pat" "$n" "$b" "$ops" \
						$((lgs_ok)) $((lh_ok)) "$lhw_end"
					((lgs_ok != lh_ok)) && bad=1
					continue
				fi
				diff=$(awk -v a="$lgs_end" -v b="$lh_end" 'BEGIN {d = (b - a) / (a > 0 ? a : 1) * 100; if (d < 0) d = -d; printf "%.4f", d}')
				worst=$(awk -v a="$worst" -v b="$diff" 'BEGIN {print (b > a ? b : a)}')
				awk -v d="$diff" 'BEGIN {exit !(d > 1)}' && bad=1
				rate() { awk -v o="$ops" -v s="$1" 'BEGIN {if (s > 0) printf "%.3g", o / s; else print "-"}'; }
				printf "%-10s %-22s %5s %6s %9s %16s %16s %8s %16s %7s %7s %6s %6s %10s %10s\n" $gen "$pat" "$n" "$b" "$ops" \
					"$lgs_end" "$lh_end" "$diff" "$lhw_end" "$lgs_s" "$lh_s" "$lgs_m" "$lh_m" "$(rate "$lgs_s")" "$(rate "$lh_s")"
			done
		done
	done
done
echo "schedules: $runs; largest end-time difference: $worst %"

# RANDOM=N: N random schedules (2 to 6 ranks; sends, receives with wildcards, calcs; cpu and
# nic suffixes; requires and irequires; 0 bytes, eager and rendezvous sizes) through both:
# the same end time, or both ending with operations unmatched.
if [[ ${RANDOM_SCHEDULES:-0} -gt 0 ]]; then
	cat >"$work/gen.py" <<'PY'
import random, sys
seed=int(sys.argv[1]); random.seed(seed)
n=random.randint(2,6)
out=["num_ranks %d"%n]
# build matched sends/recvs: list of messages
msgs=[]
for _ in range(random.randint(1,12)):
    s=random.randrange(n); d=random.randrange(n)
    size=random.choice([0,1,8,100,70000,200000])
    tag=random.randint(0,2)
    msgs.append((s,d,size,tag))
ops={r:[] for r in range(n)}
for (s,d,size,tag) in msgs:
    ops[s].append("send %db to %d tag %d"%(size,d,tag))
    src = -1 if random.random()<0.2 else s
    t = -1 if random.random()<0.2 else tag
    ops[d].append("recv %db from %d tag %d"%(size,src,t))
for r in range(n):
    for _ in range(random.randint(0,3)):
        ops[r].append("calc %d"%random.choice([0,10,1000,5000]))
    random.shuffle(ops[r])
for r in range(n):
    out.append("rank %d {"%r)
    L=ops[r]
    for i,o in enumerate(L):
        suf=""
        if random.random()<0.3: suf+=" cpu %d"%random.randint(0,1)
        if not o.startswith("calc") and random.random()<0.3:
            if "cpu" not in suf and random.random()<0.5: suf+=" cpu 0"
            suf+=" nic %d"%random.randint(0,1)
        out.append("l%d: %s%s"%(i+1,o,suf))
    for i in range(1,len(L)):
        if random.random()<0.5:
            j=random.randrange(i)
            out.append("l%d %s l%d"%(i+1, random.choice(["requires","irequires"]), j+1))
    out.append("}")
print("\n".join(out))
PY
	same=0 unmatched=0
	for seed in $(seq 1 "$RANDOM_SCHEDULES"); do
		python3 "$work/gen.py" "$seed" >"$work/r.goal"
		"$TXT2BIN" -i "$work/r.goal" -o "$work/r.bin" >/dev/null 2>&1 || { echo "random $seed: txt2bin refused it"; bad=1; continue; }
		a=$("$LOGGOPSIM" -f "$work/r.bin" -b 2>&1 | grep -o 'Maximum finishing time at host [0-9]*: [0-9]*' | awk '{print $NF}')
		b=$("$LHSIM" goal --network loggp --stdsort --schedule "$work/r.goal" --json 2>/dev/null | grep -o '"end_ns": *[0-9.]*' | awk '{print $NF}')
		"$LHSIM" goal --network loggp --stdsort --schedule "$work/r.goal" >/dev/null 2>&1
		rc=$?
		if [[ -z $a && $rc != 0 ]]; then
			unmatched=$((unmatched + 1))
		elif [[ -n $a && $rc == 0 ]] && awk -v a="$a" -v b="$b" 'BEGIN {exit !(a == b)}'; then
			same=$((same + 1))
		else
			echo "random $seed: LogGOPSim ${a:-unmatched}, lhsim --stdsort ${b:-failed}"
			bad=1
		fi
	done
	echo "random schedules: $RANDOM_SCHEDULES; the same end time: $same; both unmatched: $unmatched"
fi
exit $bad
