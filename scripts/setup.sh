#!/usr/bin/env bash
# Installs the simulators and tools lhsim needs, from Debian packages, when they are missing.
# Idempotent and silent when everything is there.
set -euo pipefail
need=()
# --mpi: also what lhsim goal record needs (docs/apps.md): Open MPI and MPICH with their headers
# and Fortran compiler, for make tracer, and LAMMPS (with its examples), HPCC and NWChem to trace
# (make traces). make test needs none.
if [ "${1:-}" = "--mpi" ]; then
	command -v mpirun.openmpi >/dev/null || need+=(openmpi-bin)
	[ -f /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h ] || [ -f /usr/include/x86_64-linux-gnu/openmpi/mpi.h ] || need+=(libopenmpi-dev)
	command -v mpirun.mpich >/dev/null || need+=(mpich)
	[ -f /usr/include/x86_64-linux-gnu/mpich/mpi.h ] || need+=(libmpich-dev)
	command -v gfortran >/dev/null || need+=(gfortran)
	command -v lmp >/dev/null || need+=(lammps)
	command -v hpcc >/dev/null || need+=(hpcc)
	# make traces: LAMMPS's example inputs and NWChem (Fortran) for the matcher study.
	[ -d /usr/share/lammps/examples ] || need+=(lammps-examples)
	command -v nwchem.openmpi >/dev/null || need+=(nwchem-openmpi)
fi
command -v verilator >/dev/null || need+=(verilator)
command -v yosys >/dev/null || need+=(yosys)
# yosys-smtbmc's solver for make formal (docs/formal.md: why cvc5, not z3 or boolector)
command -v cvc5 >/dev/null || need+=(cvc5)
command -v iverilog >/dev/null || need+=(iverilog)
command -v gtkwave >/dev/null || need+=(gtkwave)
command -v xvfb-run >/dev/null || need+=(xvfb)
command -v xdotool >/dev/null || need+=(xdotool)
command -v import >/dev/null || need+=(imagemagick)
pkg-config --exists zlib 2>/dev/null || need+=(zlib1g-dev pkg-config)
[ ${#need[@]} -eq 0 ] && exit 0
echo "setup: installing ${need[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
