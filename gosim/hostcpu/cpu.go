package hostcpu

import (
	"fmt"
	"sort"
)

// Region is a range of physical addresses with one memory type.
type Region struct {
	Name      string
	Base      uint64
	Size      uint64
	Cacheable bool // write-back; false means uncached (UC)
	Device    bool // on the DIMM-slot NIC (DeviceLatencyPs) rather than main memory
}

// Stats counts what the model did since New or ResetStats.
type Stats struct {
	Loads        uint64 // cacheable loads (one per line touched)
	L1Hits       uint64
	L2Hits       uint64 // includes hits on lines still in flight
	L2InFlight   uint64 // L2 hits that waited for a fill to finish
	Misses       uint64 // demand misses in both levels
	Prefetches   uint64 // lines fetched by adjacent-line or stream prefetch
	UCReads      uint64 // uncached bus reads (8-byte chunks)
	UCWrites     uint64
	Flushes      uint64
	Polls        uint64
	StallPs      int64 // time spent waiting for memory or the device
	ComputePs    int64 // time spent executing instructions
	BusBusyPs    int64 // memory bus occupancy
	DeviceWaitPs int64 // time handed over by Advance and PollUntil
}

// CPU is the state of one run: the clock, cache contents, prefetch streams and the bus.
type CPU struct {
	cfg     Config
	regions []Region

	now     int64
	busFree int64
	l1, l2  *cache
	streams []stream
	stamp   uint64
	lineSh  uint
	stats   Stats

	// The out-of-order core (ROBEntries > 0). now is the front end: when the next
	// instruction is allocated. seq counts the instructions allocated so far; window holds the
	// loads not yet retired, oldest first; misses the completion times of first-level misses
	// still outstanding.
	seq    int64
	window []inflight
	misses []int64
}

// inflight is one load the out-of-order core has issued and not yet retired.
type inflight struct {
	seq    int64 // instructions allocated before it
	retire int64 // when it retires: its data is back and every older load has retired
}

// New makes a CPU at time 0 with empty caches. Addresses outside every mapped region are
// cacheable main memory.
func New(cfg Config) (*CPU, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &CPU{cfg: cfg}
	for 1<<c.lineSh < cfg.LineBytes {
		c.lineSh++
	}
	c.l1 = newCache(cfg.L1Bytes/(cfg.L1Ways*cfg.LineBytes), cfg.L1Ways)
	c.l2 = newCache(cfg.L2Bytes/(cfg.L2Ways*cfg.LineBytes), cfg.L2Ways)
	return c, nil
}

// Config returns the machine being modelled.
func (c *CPU) Config() Config { return c.cfg }

// Map adds a region. Regions must not overlap.
func (c *CPU) Map(r Region) error {
	if r.Size == 0 {
		return fmt.Errorf("hostcpu: region %q is empty", r.Name)
	}
	for _, o := range c.regions {
		if r.Base < o.Base+o.Size && o.Base < r.Base+r.Size {
			return fmt.Errorf("hostcpu: region %q overlaps %q", r.Name, o.Name)
		}
	}
	c.regions = append(c.regions, r)
	sort.Slice(c.regions, func(i, j int) bool { return c.regions[i].Base < c.regions[j].Base })
	return nil
}

func (c *CPU) region(addr uint64) Region {
	for _, r := range c.regions {
		if addr >= r.Base && addr < r.Base+r.Size {
			return r
		}
	}
	return Region{Name: "main", Cacheable: true}
}

func (c *CPU) latency(r Region) int64 {
	if r.Device {
		return c.cfg.DeviceLatencyPs
	}
	return c.cfg.MemLatencyPs
}

// Now is the current time in picoseconds, once everything issued so far is done: the
// out-of-order core first waits for the loads it still has in flight (whoever reads the
// clock has used their data), so time read twice never runs backwards.
func (c *CPU) Now() int64 {
	c.drain()
	return c.now
}

// drain waits for every load in flight to retire: an uncached access, a flush or a wait for
// something outside the model happens only when the instructions before it are done (uncached
// accesses are never speculative).
func (c *CPU) drain() {
	if n := len(c.window); n > 0 && c.window[n-1].retire > c.now {
		c.stall(c.window[n-1].retire - c.now)
	}
	c.window = c.window[:0]
	c.misses = c.misses[:0]
}

// Stats returns the counters.
func (c *CPU) Stats() Stats { return c.stats }

// ResetStats zeroes the counters; time and cache contents stay.
func (c *CPU) ResetStats() { c.stats = Stats{} }

// Advance lets ps picoseconds pass (the host waits for something outside the model).
func (c *CPU) Advance(ps int64) {
	c.drain()
	if ps > 0 {
		c.now += ps
		c.stats.DeviceWaitPs += ps
	}
}

// Compute runs n instructions of the software at CPIMilli. On the out-of-order core the
// instruction ROBEntries after a load that has not retired waits for it: the reorder buffer
// is full.
func (c *CPU) Compute(instructions int) {
	if instructions <= 0 {
		return
	}
	end := c.seq + int64(instructions)
	if c.cfg.ROBEntries > 0 {
		c.prune()
		rob := int64(c.cfg.ROBEntries)
		for _, ld := range c.window {
			k := ld.seq + rob // the first instruction that needs ld's entry
			if k <= c.seq {
				continue
			}
			if k > end {
				break
			}
			c.computeN(k - 1 - c.seq)
			if ld.retire > c.now {
				c.stall(ld.retire - c.now)
			}
		}
	}
	c.computeN(end - c.seq)
}

func (c *CPU) computeN(n int64) {
	if n <= 0 {
		return
	}
	ps := c.cfg.CyclesPs(n * c.cfg.CPIMilli / 1000)
	c.now += ps
	c.stats.ComputePs += ps
	c.seq += n
}

// prune forgets the loads that retired by now: they hold no buffer and bound nothing.
func (c *CPU) prune() {
	i := 0
	for i < len(c.window) && c.window[i].retire <= c.now {
		i++
	}
	if i > 0 {
		c.window = append(c.window[:0], c.window[i:]...)
	}
}

// Load reads n bytes at addr and returns when the data is in a register. A cacheable region
// goes through the caches (one lookup per line touched); an uncached one costs one bus read per
// UCChunkBytes, strictly in order.
func (c *CPU) Load(addr uint64, n int) {
	if n <= 0 {
		return
	}
	r := c.region(addr)
	if !r.Cacheable {
		chunks := (n + c.cfg.UCChunkBytes - 1) / c.cfg.UCChunkBytes
		for i := 0; i < chunks; i++ {
			c.ucRead(r)
		}
		return
	}
	first := addr >> c.lineSh
	last := (addr + uint64(n) - 1) >> c.lineSh
	for l := first; l <= last; l++ {
		if c.cfg.ROBEntries > 0 {
			c.issueLoad(l)
		} else {
			c.loadLine(l)
		}
	}
}

// issueLoad is one load on the out-of-order core: it takes a load buffer (the front end waits
// for one if all are held), goes to the caches when a first-level miss slot is free (the
// front end does not wait for that), and retires when its data is back and every older load
// has retired. The instructions after it go on at once.
func (c *CPU) issueLoad(l uint64) {
	c.prune()
	if lb := c.cfg.LoadBuffers; len(c.window) >= lb {
		if t := c.window[len(c.window)-lb].retire; t > c.now {
			c.stall(t - c.now)
		}
		c.prune()
	}
	at := c.now
	done, l1miss := c.access(l, at, c.missSlot)
	retire := done
	if n := len(c.window); n > 0 && c.window[n-1].retire > retire {
		retire = c.window[n-1].retire
	}
	c.window = append(c.window, inflight{seq: c.seq, retire: retire})
	if l1miss {
		c.misses = append(c.misses, done)
	}
}

// missSlot is the earliest time from at when fewer than MaxLoadMisses first-level misses are
// outstanding.
func (c *CPU) missSlot(at int64) int64 {
	live := c.misses[:0]
	for _, d := range c.misses {
		if d > at {
			live = append(live, d)
		}
	}
	c.misses = live
	if len(live) < c.cfg.MaxLoadMisses {
		return at
	}
	sorted := append([]int64(nil), live...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	return sorted[len(sorted)-c.cfg.MaxLoadMisses]
}

// Store writes n bytes at addr. Uncached stores cost UCWritePs per chunk (they are strongly
// ordered: the CPU waits for each bus write). Cacheable stores are absorbed by the store
// buffer and cost nothing here: the search never stores to the queue.
func (c *CPU) Store(addr uint64, n int) {
	r := c.region(addr)
	if r.Cacheable || n <= 0 {
		return
	}
	c.drain()
	chunks := (n + c.cfg.UCChunkBytes - 1) / c.cfg.UCChunkBytes
	for i := 0; i < chunks; i++ {
		c.stats.UCWrites++
		c.stall(c.cfg.UCWritePs)
	}
}

// Flush evicts the line holding addr from both levels (clflush): the next load misses. The
// driver flushes an LH entry before its slot is reused, since the NIC writes the buffer behind
// the cache's back.
func (c *CPU) Flush(addr uint64) {
	c.drain()
	l := addr >> c.lineSh
	c.l1.invalidate(l)
	c.l2.invalidate(l)
	c.stats.Flushes++
	ps := c.cfg.CyclesPs(int64(c.cfg.FlushCycles))
	c.now += ps
	c.stats.ComputePs += ps
}

// FlushAll empties both caches and forgets the prefetch streams, at no cost: a cold start.
func (c *CPU) FlushAll() {
	c.l1.clear()
	c.l2.clear()
	c.streams = c.streams[:0]
	c.drain()
}

// PollUntil models a loop of uncached reads of a device status register at addr that stops
// at the first read that sees an event happening at time doneAt. A read issued at t reaches
// the device halfway through its round trip and returns at t + latency. It returns the
// number of reads.
func (c *CPU) PollUntil(addr uint64, doneAt int64) int {
	r := c.region(addr)
	lat := c.latency(r)
	c.drain()
	polls := 0
	for {
		issue := c.now
		c.ucRead(r)
		polls++
		if issue+lat/2 >= doneAt {
			break
		}
	}
	c.stats.Polls += uint64(polls)
	return polls
}

func (c *CPU) ucRead(r Region) {
	c.drain()
	c.stats.UCReads++
	start := c.now
	c.stall(c.latency(r))
	// An uncached read holds the bus for one transfer beat at most; it does not wait behind
	// prefetches (the chipset serves the CPU's demand first).
	if c.busFree < start {
		c.busFree = start
	}
}

func (c *CPU) stall(ps int64) {
	c.now += ps
	c.stats.StallPs += ps
}

func (c *CPU) cyc(n int) int64 { return c.cfg.CyclesPs(int64(n)) }

// loadLine is one demand access to a cacheable line on the in-order core: the load waits for
// its data.
func (c *CPU) loadLine(l uint64) {
	done, l1miss := c.access(l, c.now, nil)
	if !l1miss {
		c.compute(done - c.now)
		return
	}
	c.stall(done - c.now)
}

// access looks line l up for a load issued at time at and returns when its data is there and
// whether it missed the first level. slot, when not nil, delays a first-level miss until a
// miss slot is free.
func (c *CPU) access(l uint64, at int64, slot func(int64) int64) (done int64, l1miss bool) {
	c.stats.Loads++
	c.stamp++
	if w, ok := c.l1.lookup(l); ok {
		c.l1.touch(w, c.stamp)
		c.stats.L1Hits++
		if r := c.l1.ready[w]; r > at {
			at = r // the line is still being filled by an earlier miss
		}
		return at + c.cyc(c.cfg.L1LatencyCycles), false
	}
	if slot != nil {
		at = slot(at)
	}
	if w, ok := c.l2.lookup(l); ok {
		c.l2.touch(w, c.stamp)
		c.stats.L2Hits++
		if ready := c.l2.ready[w]; ready > at {
			c.stats.L2InFlight++
			at = ready
		}
		done = at + c.cyc(c.cfg.L2LatencyCycles)
		c.l1.insert(l, done, c.stamp)
		c.streamAccess(l, false, at)
		return done, true
	}
	c.stats.Misses++
	done = c.fetch(l, at)
	c.l2.insert(l, done, c.stamp)
	if c.cfg.AdjacentLine {
		c.prefetch(l^1, at)
	}
	c.streamAccess(l, true, at)
	c.l1.insert(l, done, c.stamp)
	return done, true
}

func (c *CPU) compute(ps int64) {
	c.now += ps
	c.stats.ComputePs += ps
}

// fetch schedules one line transfer on the memory bus requested at time at, and returns when
// the line has arrived: no earlier than the region's latency, and no earlier than one line
// transfer after the bus frees.
func (c *CPU) fetch(l uint64, at int64) int64 {
	r := c.region(l << c.lineSh)
	done := at + c.latency(r)
	if b := c.busFree + c.cfg.LineTransferPs; b > done {
		done = b
	}
	c.busFree = done
	c.stats.BusBusyPs += c.cfg.LineTransferPs
	return done
}

// prefetch brings line l into the second level if it is cacheable and not there yet.
func (c *CPU) prefetch(l uint64, at int64) {
	if !c.region(l << c.lineSh).Cacheable {
		return
	}
	if _, ok := c.l2.lookup(l); ok {
		return
	}
	c.stats.Prefetches++
	c.stamp++
	c.l2.insert(l, c.fetch(l, at), c.stamp)
}

// stream is one tracked access stream of the hardware prefetcher, within one page.
type stream struct {
	page      uint64
	last      uint64 // line of the latest access seen
	confirmed bool
	ahead     uint64 // highest line requested so far
	used      uint64
}

// streamAccess is called for every second-level access (demand hit or miss).
func (c *CPU) streamAccess(l uint64, miss bool, at int64) {
	if !c.cfg.StreamPrefetch || !c.region(l<<c.lineSh).Cacheable {
		return
	}
	pageLines := uint64(c.cfg.StreamPageBytes / c.cfg.LineBytes)
	page := l / pageLines
	var s *stream
	for i := range c.streams {
		if c.streams[i].page == page {
			s = &c.streams[i]
			break
		}
	}
	if s == nil {
		if !miss {
			return
		}
		if len(c.streams) < c.cfg.StreamMax {
			c.streams = append(c.streams, stream{})
			s = &c.streams[len(c.streams)-1]
		} else {
			s = &c.streams[0]
			for i := range c.streams {
				if c.streams[i].used < s.used {
					s = &c.streams[i]
				}
			}
		}
		*s = stream{page: page, last: l, ahead: l, used: c.stamp}
		return
	}
	s.used = c.stamp
	if !s.confirmed {
		trig := uint64(c.cfg.StreamTriggerBytes / c.cfg.LineBytes)
		if miss && l > s.last && l-s.last <= trig {
			s.confirmed = true
		} else {
			if miss {
				s.last, s.ahead = l, l
			}
			return
		}
	}
	if l > s.last {
		s.last = l
	}
	target := l + uint64(c.cfg.StreamAheadBytes/c.cfg.LineBytes)
	if end := (page+1)*pageLines - 1; target > end {
		target = end
	}
	from := s.ahead + 1
	if from <= l {
		from = l + 1
	}
	for p := from; p <= target; p++ {
		c.prefetch(p, at)
	}
	if target > s.ahead {
		s.ahead = target
	}
}

// cache is a set-associative tag store with LRU replacement and, per line, the time its fill
// completes (a line can be present but still in flight).
type cache struct {
	sets, ways int
	tags       []uint64 // line+1; 0 is empty
	ready      []int64
	used       []uint64
}

func newCache(sets, ways int) *cache {
	return &cache{sets: sets, ways: ways, tags: make([]uint64, sets*ways), ready: make([]int64, sets*ways), used: make([]uint64, sets*ways)}
}

func (k *cache) base(l uint64) int { return int(l%uint64(k.sets)) * k.ways }

func (k *cache) lookup(l uint64) (int, bool) {
	b := k.base(l)
	for i := b; i < b+k.ways; i++ {
		if k.tags[i] == l+1 {
			return i, true
		}
	}
	return 0, false
}

func (k *cache) touch(w int, stamp uint64) { k.used[w] = stamp }

func (k *cache) insert(l uint64, ready int64, stamp uint64) {
	if w, ok := k.lookup(l); ok {
		k.used[w] = stamp
		if ready < k.ready[w] {
			k.ready[w] = ready
		}
		return
	}
	b := k.base(l)
	victim := b
	for i := b; i < b+k.ways; i++ {
		if k.tags[i] == 0 {
			victim = i
			break
		}
		if k.used[i] < k.used[victim] {
			victim = i
		}
	}
	k.tags[victim], k.ready[victim], k.used[victim] = l+1, ready, stamp
}

func (k *cache) invalidate(l uint64) {
	if w, ok := k.lookup(l); ok {
		k.tags[w] = 0
	}
}

func (k *cache) clear() {
	for i := range k.tags {
		k.tags[i] = 0
	}
}
