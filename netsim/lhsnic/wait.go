package lhsnic

// When a receive path need not be stepped: its input held off, waiting for its host.

// heldOff: the input is held off (a full LH buffer or tail ring), nothing moves inside the
// device, and only the host can change that: the node need not be stepped until its host
// makes an access or a message comes, each of which runs the cycles up to its time first
// (reach), the same cycles the node would have run in steps. The input must have been held
// off for stuckCycles with nothing taken and no event: a stall of a few cycles between
// messages is not one that lasts. So a receive path whose LH buffer is full waiting for its
// host adds no events (on parts: no window) while it waits; one whose host never comes
// leaves the run with its waiting ranks, as one with no event left always did.
func (n *Node) heldOff() bool {
	return n.st.Stalled && n.stuck >= stuckCycles && !n.st.MemBusy && !n.st.HostBusy && n.st.Pending > 0 && len(n.held) == 0
}

// stepHeldOff steps a held-off node all the same (a test's reference run).
var stepHeldOff = false

// stuckCycles is how long the input must have been held off, nothing else happening, before
// a node counts as held off: longer than any pause of the receive path between messages (a
// few cycles), short beside a run (10 µs at 100 MHz).
const stuckCycles = 1024

// waitsForHost: the input is held off by a full LH buffer, nothing but the host's held
// releases can change that, and those come later.
func (n *Node) waitsForHost() bool {
	return n.cfg.LHS && n.st.Stalled && len(n.held) >= n.entries && n.start(n.next) < n.cfg.HoldReleases &&
		!n.st.MemBusy && n.st.Pending > 0
}
