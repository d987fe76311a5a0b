// Package memlimit is the one memory limit lhsim compares its estimates with: the least of
// every limit a process can have, each named, so that a run that cannot fit is refused
// before it allocates, with the estimate and the limit that binds, instead of dying with
// "fatal error: out of memory" where Slurm and containers put their limits.
//
// The limits, each only when it is set: the address space (RLIMIT_AS, ulimit -v: what the
// process may still map, its size now subtracted); the process's own memory cgroup, found
// through /proc/self/cgroup (v1 memory.limit_in_bytes, v2 memory.max; the least of its
// folder and those above it, which bound it too); GOMEMLIMIT; the memory available
// (MemAvailable). Without any: 8 GiB.
package memlimit

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// CgroupRootEnv names another cgroup file system root than /sys/fs/cgroup (tests: a fake
// hierarchy with a memory.max or memory.limit_in_bytes).
const CgroupRootEnv = "LHSIM_CGROUP_ROOT"

// Limit is a limit in bytes and where it comes from.
type Limit struct {
	Bytes  int64
	Source string // "ulimit -v", "cgroup memory.max", "GOMEMLIMIT", "memory available", ...
}

func (l Limit) String() string { return GiB(l.Bytes) + " (" + l.Source + ")" }

// Current is the least of the limits set on this process now.
func Current() Limit {
	best := Limit{8 << 30, "no limit found: 8 GiB assumed"}
	found := false
	for _, l := range All() {
		if !found || l.Bytes < best.Bytes {
			best, found = l, true
		}
	}
	return best
}

// All is every limit set on this process now, in the order the package comment gives.
func All() []Limit {
	var ls []Limit
	if l, ok := addressSpace(); ok {
		ls = append(ls, l)
	}
	root := os.Getenv(CgroupRootEnv)
	if root == "" {
		root = "/sys/fs/cgroup"
	}
	ls = append(ls, cgroup(root, "/proc/self/cgroup")...)
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		ls = append(ls, Limit{l, "GOMEMLIMIT"})
	}
	if kb, ok := meminfo("MemAvailable:"); ok {
		ls = append(ls, Limit{kb << 10, "memory available"})
	}
	return ls
}

// addressSpace is what RLIMIT_AS lets the process still map: the limit less the process's
// virtual size now (the Go runtime, the libraries and what is already allocated).
func addressSpace() (Limit, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur == math.MaxUint64 || r.Cur > math.MaxInt64 {
		return Limit{}, false
	}
	left := int64(r.Cur)
	if kb, ok := statusKB("VmSize:"); ok {
		left -= kb << 10
	}
	return Limit{max(left, 0), "ulimit -v " + strconv.FormatUint(r.Cur>>10, 10) + " KiB, less what is mapped"}, true
}

// cgroup is the memory limits of the process's cgroups under root, read from procFile (the
// process's /proc/self/cgroup): v1's memory controller and v2's unified hierarchy, the
// least along each path from the process's folder up to root.
func cgroup(root, procFile string) []Limit {
	data, err := os.ReadFile(procFile)
	if err != nil {
		return nil
	}
	var ls []Limit
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		switch {
		case f[0] == "0" && f[1] == "": // v2
			if l, ok := leastUp(root, f[2], "memory.max", "cgroup memory.max"); ok {
				ls = append(ls, l)
			}
		case hasController(f[1], "memory"): // v1
			if l, ok := leastUp(filepath.Join(root, "memory"), f[2], "memory.limit_in_bytes", "cgroup memory.limit_in_bytes"); ok {
				ls = append(ls, l)
			}
		}
	}
	return ls
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// leastUp is the least limit in file from base/path up to base ("max", absent, or v1's
// unlimited 2^63 rounded down to a page, are no limit).
func leastUp(base, path, file, source string) (Limit, bool) {
	var best Limit
	found := false
	dir := filepath.Join(base, filepath.Clean("/"+path))
	for {
		if b, err := os.ReadFile(filepath.Join(dir, file)); err == nil {
			s := strings.TrimSpace(string(b))
			if v, err := strconv.ParseInt(s, 10, 64); err == nil && v > 0 && v < 1<<62 {
				if !found || v < best.Bytes {
					best, found = Limit{v, source + " " + filepath.Join(dir, file)}, true
				}
			}
		}
		if dir == base || len(dir) <= len(base) {
			break
		}
		dir = filepath.Dir(dir)
	}
	return best, found
}

func meminfo(key string) (int64, bool)  { return procKB("/proc/meminfo", key) }
func statusKB(key string) (int64, bool) { return procKB("/proc/self/status", key) }

func procKB(file, key string) (int64, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == key && f[2] == "kB" {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil && kb > 0 {
				return kb, true
			}
		}
	}
	return 0, false
}

// ErrTooBig is a run whose estimate passes the limit.
var ErrTooBig = errors.New("does not fit in memory")

// Estimate is the memory a run will take, part by part: every large structure adds its
// share (the fabric its routers and queues, a matcher its tables), so that the refusal
// names what takes the memory.
type Estimate struct {
	Parts []Part
}

// Part is one structure's share.
type Part struct {
	What  string
	Bytes int64
}

// Add counts bytes for what.
func (e *Estimate) Add(what string, bytes int64) { e.Parts = append(e.Parts, Part{what, bytes}) }

// Total is the sum of the parts.
func (e *Estimate) Total() int64 {
	var t int64
	for _, p := range e.Parts {
		t += p.Bytes
	}
	return t
}

// Need is what the run needs: the total doubled for the garbage collector's headroom (a Go
// heap grows to twice what it keeps, GOGC=100).
func (e *Estimate) Need() int64 { return 2 * e.Total() }

// Check refuses the estimate when Need passes l; the error wraps ErrTooBig and gives the
// parts, the need and the limit with its source.
func (e *Estimate) Check(l Limit) error {
	if e.Need() <= l.Bytes {
		return nil
	}
	parts := make([]string, len(e.Parts))
	for i, p := range e.Parts {
		parts[i] = p.What + " (" + GiB(p.Bytes) + ")"
	}
	return fmt.Errorf("%w: %s, doubled for the collector, need about %s, and the limit is %s",
		ErrTooBig, strings.Join(parts, " + "), GiB(e.Need()), l)
}

// GiB is b in GiB with one decimal.
func GiB(b int64) string { return strconv.FormatFloat(float64(b)/(1<<30), 'f', 1, 64) + " GiB" }
