package ib

import "github.com/lhsim/lhsim/netsim"

// bus is a node's PCI-X segment, which the HCA's DMA and the host's PIO writes to the HCA
// share. A transaction holds the bus for its request phases and its data phases. A DMA read
// is a split transaction: its data comes back DMAReadDelayCycles after the request, and
// other transactions use the bus in between. A write is posted: the writer goes on, and the
// data is in memory (or the register) when its last data phase ends.
type bus struct {
	p    *Params
	busy []span // booked, sorted, not overlapping; those ended are dropped as time passes

	// lastWrite is when the last posted write of each direction ends: a posted write never
	// passes an earlier one (PCI's ordering rule), so a CQE lands after its message's data.
	lastWrite [2]netsim.Time

	// What the bus has carried: busy time and transactions, for reports.
	BusyTime netsim.Time
	Reads    uint64
	Writes   uint64
}

type span struct{ from, to netsim.Time }

// book reserves the first free stretch of length d at or after at and returns its start.
func (b *bus) book(now, at, d netsim.Time) netsim.Time {
	k := 0
	for k < len(b.busy) && b.busy[k].to <= now {
		k++
	}
	b.busy = b.busy[k:]
	start := at
	i := 0
	for ; i < len(b.busy); i++ {
		s := b.busy[i]
		if s.to <= start {
			continue
		}
		if s.from >= start+d {
			break
		}
		start = s.to
	}
	b.busy = append(b.busy, span{})
	copy(b.busy[i+1:], b.busy[i:])
	b.busy[i] = span{start, start + d}
	b.BusyTime += d
	return start
}

// read books a DMA read of n bytes requested at at and returns when its last data has
// arrived at the HCA.
func (b *bus) read(now, at netsim.Time, n int) netsim.Time {
	p := b.p
	req := b.book(now, at, p.pcix(p.PCIXRequestCycles)) + p.pcix(p.PCIXRequestCycles)
	d := p.pcix(p.dataCycles(n))
	b.Reads++
	return b.book(now, req+p.pcix(p.DMAReadDelayCycles), d) + d
}

// Directions of posted writes.
const (
	toMemory = 0 // DMA writes by the HCA
	toHCA    = 1 // PIO writes by the host
)

// write books a posted write of n bytes in direction dir (a DMA write to memory, or a PIO
// write to the HCA) issued at at, after the direction's earlier writes, and returns when its
// data is all there.
func (b *bus) write(now, at netsim.Time, n, dir int) netsim.Time {
	p := b.p
	d := p.pcix(p.PCIXRequestCycles + p.dataCycles(n))
	b.Writes++
	end := b.book(now, max(at, b.lastWrite[dir]), d) + d
	b.lastWrite[dir] = end
	return end
}

// idle reports whether nothing is booked after now.
func (b *bus) idle(now netsim.Time) bool {
	return len(b.busy) == 0 || b.busy[len(b.busy)-1].to <= now
}
