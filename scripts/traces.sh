#!/usr/bin/env bash
# make traces: record and convert the real programs of the matcher study (docs/apps.md, "The
# study on real programs") at 8, 16 and 64 ranks with lhsim goal record and lhsim goal convert,
# under Open MPI (scripts/setup.sh --mpi installs the programs). Each schedule goes to
# build/traces/NAME.RANKS.goal.gz; `lhsim matchers --workloads NAME.RANKS` runs it (a schedule
# checked in under traces/ is found first). Times and the conversion's statistics go to
# build/traces/NAME.RANKS.{time,stats.json}.
#   scripts/traces.sh [RANKS...] [-- PROGRAMS...]   (default: 8 16 64, every program)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
ranks=() progs=()
while [ $# -gt 0 ]; do
	if [ "$1" = "--" ]; then shift; progs=("$@"); break; fi
	ranks+=("$1"); shift
done
[ ${#ranks[@]} -gt 0 ] || ranks=(8 16 64)
[ ${#progs[@]} -gt 0 ] || progs=(lammps-melt lammps-peptide hpcc nwchem-scf)
lhsim=${LHSIM:-$root/build/bin/lhsim}
out=$root/build/traces
mkdir -p "$out"
ex=/usr/share/lammps/examples
for p in "${progs[@]}"; do
	case $p in
	lammps-melt | lammps-melt-50steps | lammps-peptide) command -v lmp >/dev/null && [ -d $ex ] || { echo "traces: $p needs lammps and lammps-examples: bash scripts/setup.sh --mpi" >&2; exit 1; } ;;
	hpcc) command -v hpcc >/dev/null || { echo "traces: hpcc is not installed: bash scripts/setup.sh --mpi" >&2; exit 1; } ;;
	nwchem-scf) command -v nwchem.openmpi >/dev/null || { echo "traces: nwchem-openmpi is not installed: bash scripts/setup.sh --mpi" >&2; exit 1; } ;;
	*) echo "traces: no program $p (lammps-melt, lammps-melt-50steps, lammps-peptide, hpcc, nwchem-scf)" >&2; exit 2 ;;
	esac
done

# hpccinf writes HPCC's input for n ranks: HPL's N, NB and the P x Q grid (P <= Q, as square as
# n allows), one problem, PTRANS on the same; N small enough that the run takes seconds.
hpccinf() {
	local n=$1 p=1 q
	for ((i = 1; i * i <= n; i++)); do ((n % i == 0)) && p=$i; done
	q=$((n / p))
	cat <<HPCC
HPLinpack benchmark input file (lhsim scripts/traces.sh: $n ranks, N=$HPCC_N NB=$HPCC_NB P x Q = $p x $q)
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
1            # of problems sizes (N)
$HPCC_N      Ns
1            # of NBs
$HPCC_NB     NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
$p           Ps
$q           Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                               Number of additional problem sizes for PTRANS
1200 10000 30000                values of N
0                               number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64        values of NB
HPCC
}
HPCC_N=${HPCC_N:-400}
HPCC_NB=${HPCC_NB:-40}

for p in "${progs[@]}"; do
	for n in "${ranks[@]}"; do
		name=$p.$n
		run=$out/$name.run
		rm -rf "$run" "$out/$name.trace" "$out/$name.trace.partial"
		mkdir -p "$run"
		case $p in
		lammps-melt) cmd=(lmp -in $ex/melt/in.melt -log none -screen none) ;;
		# The schedule make test runs (traces/lammps-melt-50steps.8.goal.gz): the melt, 50 steps.
		lammps-melt-50steps) sed 's/^run\t\t250$/run\t\t50/' $ex/melt/in.melt >"$run/in.melt"
			grep -q '^run		50$' "$run/in.melt" || { echo "traces: $ex/melt/in.melt has no 'run 250' line to shorten" >&2; exit 1; }
			cmd=(lmp -in in.melt -log none -screen none) ;;
		# The peptide example's 300 steps shortened to 30: its PPPM makes about 125,000 operations a
		# step at 8 ranks.
		lammps-peptide) cp $ex/peptide/data.peptide "$run/"; sed 's/^run\t\t300$/run\t\t30/' $ex/peptide/in.peptide >"$run/in.peptide"
			grep -q '^run		30$' "$run/in.peptide" || { echo "traces: $ex/peptide/in.peptide has no 'run 300' line to shorten" >&2; exit 1; }
			cmd=(lmp -in in.peptide -log none -screen none) ;;
		hpcc) hpccinf "$n" >"$run/hpccinf.txt"; cmd=(hpcc) ;;
		nwchem-scf) cp traces/h2o-scf.nw "$run/"; cmd=(nwchem.openmpi h2o-scf.nw) ;;
		esac
		echo "traces: $name" >&2
		start=$(date +%s.%N)
		(cd "$run" && OMP_NUM_THREADS=1 "$lhsim" goal record --out "$out/$name.trace" -- mpirun.openmpi -np "$n" "${cmd[@]}" >"$out/$name.log" 2>&1)
		mid=$(date +%s.%N)
		# --approximate: what it took is in the statistics (docs/apps.md says per program).
		"$lhsim" goal convert "$out/$name.trace" --out "$out/$name.goal" --json "$out/$name.stats.json" --approximate >>"$out/$name.log" 2>&1
		gzip -9nf "$out/$name.goal"
		end=$(date +%s.%N)
		echo "record $(echo "$mid - $start" | bc) s, convert $(echo "$end - $mid" | bc) s" >"$out/$name.time"
		echo "traces: $name: $(cat "$out/$name.time"), $(stat -c %s "$out/$name.goal.gz") bytes gz" >&2
	done
done
