package main

import (
	"fmt"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/memlimit"
)

// partFits refuses, before any work, a sweep whose largest part's estimate (its JobMemory)
// passes the process's memory limit even alone: --jobs lowered to 1 does not make it fit
// (lhsim matchers --ranks 1024 under a 2 GiB limit ran, and would die out of memory). Exit
// 2, one line, naming the limit. The estimate already holds the collector's headroom.
func partFits[C any](parts []experiment.Part[C]) error {
	each, lim := jobMemory(parts), experiment.MemoryLimit()
	if each <= lim.Bytes {
		return nil
	}
	return fmt.Errorf("%w: a part of this run may take about %s (its estimate: docs/performance.md), and the limit is %s (%s)",
		memlimit.ErrTooBig, sizeString(each), sizeString(lim.Bytes), lim.Source)
}
