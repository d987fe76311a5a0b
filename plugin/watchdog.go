package plugin

import (
	"syscall"
	"time"
)

// watchdog kills the process when a call has been waiting with no cycle of progress (and no
// new call started in the plugin) for the limit.
func (c *Conn) watchdog() {
	defer close(c.wdDone)
	tick := min(max(c.limit/8, 10*time.Millisecond), time.Second)
	t := time.NewTicker(tick)
	defer t.Stop()
	var seq, cycle, calls uint64
	var moved time.Time
	for {
		select {
		case <-c.wdStop:
			return
		case now := <-t.C:
			s := c.inflight.Load()
			if s == 0 {
				seq = 0
				continue
			}
			cy, ca := c.page.cycle(), c.page.calls()
			if s != seq || cy != cycle || ca != calls {
				seq, cycle, calls, moved = s, cy, ca, now
				continue
			}
			if now.Sub(moved) >= c.limit {
				// SIGQUIT makes the Go runtime print every goroutine's stack, the board's
				// (in the RTL's C++ or the model's Go) among them, before it exits.
				c.hung.Store(true)
				c.cmd.Process.Signal(syscall.SIGQUIT)
				select {
				case <-c.wdStop:
				case <-time.After(2 * time.Second):
					c.cmd.Process.Kill()
				}
				return
			}
		}
	}
}
