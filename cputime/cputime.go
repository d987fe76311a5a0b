// Package cputime reads how much CPU this process has used.
package cputime

// cputime reads how much CPU this process has used: the benchmark's rates are per
// CPU second, which unlike wall time do not change when other programs load the machine.

import (
	"syscall"
	"time"
)

// Process is the CPU time this process has used so far: user and system, all threads.
func Process() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
