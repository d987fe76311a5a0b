package alltoall

import (
	"runtime"
	"sync"
)

// split calls work(lo, hi) on ranges that cover 0..n-1, on as many goroutines as the Go
// scheduler has threads, and returns the error of the lowest range that failed: what a
// schedule's tables take (a closed-form latency for each of thousands of pairs) is
// computed on every core, each range writing only its own entries, so the tables are the
// same for any number.
func split(n int, work func(lo, hi int) error) error {
	parts := min(runtime.GOMAXPROCS(0), max(1, n/256))
	if parts <= 1 {
		return work(0, n)
	}
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { errs[p] = work(p*n/parts, (p+1)*n/parts) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
