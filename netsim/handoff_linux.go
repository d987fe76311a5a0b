package netsim

import (
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// coresWanted reports whether more threads are runnable than the process has cores: the
// kernel's count of runnable threads, the fourth field of /proc/loadavg ("1.27 1.28 1.46
// 3/87 391"), read in under a microsecond. It counts the whole machine: a process confined to
// some of its cores beside other work finds them wanted and sleeps, as it did before polling.
// False where the count cannot be read.
func coresWanted() bool {
	loadavg.once.Do(func() {
		loadavg.fd = -1
		if fd, err := unix.Open("/proc/loadavg", unix.O_RDONLY|unix.O_CLOEXEC, 0); err == nil {
			loadavg.fd = fd
		}
	})
	if loadavg.fd < 0 {
		return false
	}
	var buf [128]byte
	n, err := unix.Pread(loadavg.fd, buf[:], 0)
	if err != nil {
		return false
	}
	return runnable(buf[:n]) > runtime.NumCPU()
}

// loadavg is /proc/loadavg, opened once for the process.
var loadavg struct {
	once sync.Once
	fd   int
}
