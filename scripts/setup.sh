#!/usr/bin/env bash
# Installs the simulators and tools lhsim needs, from Debian packages, when they are missing.
# Idempotent and silent when everything is there.
set -euo pipefail
need=()
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
