#!/usr/bin/env bash
# A one-node Slurm on this machine, to test lhsim's --slurm against a real scheduler
# (docs/cluster.md). Installs slurm-wlm and munge from Debian packages when they are missing,
# writes /etc/slurm/slurm.conf for this machine's cores and memory (`slurmd -C`), and starts
# munged, slurmctld and slurmd on localhost without systemd.
#
#   scripts/slurm-local.sh start          install if missing, start, wait until the node is idle
#   scripts/slurm-local.sh stop           stop the daemons this script started
#   scripts/slurm-local.sh status         exit 0 when the one-node cluster answers, 1 otherwise
#   scripts/slurm-local.sh run -- CMD...  start if down, run CMD, stop again what it started
#
# It never touches a slurm.conf it did not write: on a machine with a real Slurm configuration
# it refuses (use that cluster instead). Every wait has a limit and says what it waited for.
set -euo pipefail

CONF=/etc/slurm/slurm.conf
MARK="# written by lhsim scripts/slurm-local.sh"
RUN=/run/lhsim-slurm
LOGS=/var/log/slurm
STATE=/var/lib/slurm/lhsim
PARTITION=debug
START_LIMIT=${SLURM_LOCAL_START_LIMIT:-60} # seconds for the daemons to answer and the node to be idle

say() { echo "slurm-local: $*" >&2; }
die() { say "$*"; exit 1; }

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

install_missing() {
	local need=()
	for c in slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client munged:munge; do
		command -v "${c%%:*}" >/dev/null || need+=("${c#*:}")
	done
	[ ${#need[@]} -eq 0 ] && return 0
	say "installing slurm-wlm munge (missing: ${need[*]})"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	# The packages' service scripts are not used: this script starts the daemons itself.
	$sudo apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
}

write_conf() {
	if [ -f "$CONF" ] && ! grep -qF "$MARK" "$CONF"; then
		die "$CONF exists and was not written by this script: this machine has a Slurm of its own; use it (lhsim --slurm) or move the file away"
	fi
	local node host
	# slurmd -C: NodeName=<host> CPUs=.. Boards=.. SocketsPerBoard=.. CoresPerSocket=.. ThreadsPerCore=.. RealMemory=..
	node=$(slurmd -C | head -n1)
	host=$(hostname -s)
	[[ "$node" == NodeName=* ]] || die "slurmd -C did not describe this node: $node"
	$sudo mkdir -p /etc/slurm "$LOGS" "$STATE/ctld" "$STATE/d" "$RUN"
	$sudo tee "$CONF.tmp" >/dev/null <<EOF
$MARK: a one-node cluster on this machine.
ClusterName=lhsim-local
# Everything on the loopback address: the host name need not resolve.
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.pid
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd.log
# No cgroups (containers often have none to give): processes tracked by parent id.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
# Start array tasks as soon as CPUs free up: the default waits up to 3 s between scheduling
# passes after a batch job ends (batch_sched_delay), about a second per task on two cores.
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
# Finished jobs stay in scontrol for 5 minutes: lhsim reads array task states from there.
MinJobAge=300
MaxArraySize=100001
MaxJobCount=200000
SlurmdTimeout=60
InactiveLimit=0
KillWait=10
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=$PARTITION Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
	$sudo mv "$CONF.tmp" "$CONF"
}

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

answers() { timeout 10 scontrol ping 2>/dev/null | grep -q 'is UP'; }

node_state() { timeout 10 sinfo -h -N -o '%T' 2>/dev/null | head -n1; }

start_daemons() {
	$sudo mkdir -p /run/munge "$RUN"
	$sudo chown munge:munge /run/munge
	if ! pid_alive /run/munge/munged.pid; then
		[ -f /etc/munge/munge.key ] || $sudo /usr/sbin/mungekey --create
		$sudo chown munge:munge /etc/munge/munge.key
		$sudo chmod 0400 /etc/munge/munge.key
		$sudo runuser -u munge -- /usr/sbin/munged
		echo munged | $sudo tee -a "$RUN/started" >/dev/null
	fi
	if ! pid_alive "$RUN/slurmctld.pid"; then
		$sudo /usr/sbin/slurmctld -c -i
		echo slurmctld | $sudo tee -a "$RUN/started" >/dev/null
	fi
	if ! pid_alive "$RUN/slurmd.pid"; then
		$sudo /usr/sbin/slurmd
		echo slurmd | $sudo tee -a "$RUN/started" >/dev/null
	fi
}

wait_idle() {
	local t0=$SECONDS st=""
	while [ $((SECONDS - t0)) -lt "$START_LIMIT" ]; do
		if answers; then
			st=$(node_state)
			case "$st" in
			idle* | mixed* | allocated* | completing*) return 0 ;;
			down* | drain*) $sudo scontrol update nodename="$(hostname -s)" state=resume 2>/dev/null || true ;;
			esac
		fi
		sleep 1
	done
	die "waited ${START_LIMIT}s for slurmctld to answer and node $(hostname -s) to be idle (last state: ${st:-no answer}); logs: $LOGS/slurmctld.log, $LOGS/slurmd.log"
}

cmd_start() {
	install_missing
	if answers && [ -f "$CONF" ] && grep -qF "$MARK" "$CONF"; then
		wait_idle
		say "up: $(sinfo -h -o '%P %D node %c CPUs %m MB %T' | head -n1)"
		return 0
	fi
	write_conf
	start_daemons
	wait_idle
	say "up: $(sinfo -h -o '%P %D node %c CPUs %m MB %T' | head -n1)"
}

stop_pid() { # name pidfile
	local pid t0=$SECONDS
	pid_alive "$2" || return 0
	pid=$(cat "$2")
	$sudo kill "$pid" 2>/dev/null || true
	while kill -0 "$pid" 2>/dev/null; do
		if [ $((SECONDS - t0)) -ge 30 ]; then
			say "$1 (pid $pid) did not stop within 30 s of SIGTERM; sending SIGKILL"
			$sudo kill -9 "$pid" 2>/dev/null || true
			break
		fi
		sleep 0.2
	done
}

cmd_stop() {
	[ -f "$CONF" ] && ! grep -qF "$MARK" "$CONF" && die "$CONF was not written by this script: not stopping that Slurm"
	stop_pid slurmd "$RUN/slurmd.pid"
	stop_pid slurmctld "$RUN/slurmctld.pid"
	stop_pid munged /run/munge/munged.pid
	$sudo rm -f "$RUN/started"
	say "stopped"
}

cmd_status() {
	if answers; then
		say "up: $(sinfo -h -o '%P %D node %c CPUs %m MB %T' | head -n1)"
		return 0
	fi
	say "down (scontrol ping has no answer)"
	return 1
}

case "${1:-}" in
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
run)
	shift
	[ "${1:-}" = "--" ] && shift
	[ $# -gt 0 ] || die "run: no command"
	was_up=0
	cmd_status 2>/dev/null && was_up=1
	cmd_start
	rc=0
	"$@" || rc=$?
	[ "$was_up" -eq 1 ] || cmd_stop
	exit "$rc"
	;;
*)
	echo "usage: $0 start|stop|status|run -- CMD..." >&2
	exit 2
	;;
esac
