// Package hostcpu is a timing model of the host CPU that searches MPI's unexpected queue.
package hostcpu

// hostcpu is a timing model of the host processor that searches the MPI
// unexpected-message queue: a CPU clock, two levels of set-associative cache with 64-byte
// lines, the Pentium 4's adjacent-line (sector) fetch and its stream prefetcher, one memory bus
// shared by main memory and the DIMM-slot NIC, uncached register accesses, line flushes, and
// polling of a device status register; and the out-of-order core's overlap of cacheable loads
// with each other and with the instructions after them, bounded by its reorder buffer, load
// buffers and outstanding-miss limit.
//
// It is not a processor simulator. The software above it says what it does (load these bytes,
// run this many instructions, write this register) and the model says how long that took.
// Time is an integer number of picoseconds; the model is deterministic.
//
// Every default in Pentium4 comes from a stated source: the paper (Tanabe et al., "Accelerating
// Message Passing with Switching Location to Store Heads of Messages", sections 4.2, 5.1), the
// IA-32 Intel Architecture Optimization Reference Manual (order 248966-013, April 2006: Table 1-1,
// pp. 1-24 and 1-25 on loads and stores, and chapter 6, "Hardware Prefetching of Data"), the
// Software Developer's Manual (vol. 1, 2.2.2), or the DDR SDRAM speed grade. The few values
// that no source gives are marked as assumptions in their comment and in docs/search.md. The
// NIC's own latencies (a vector load through the window memory) are not parameters here: the
// caller measures them on the device in clock cycles and hands the time to Advance or PollUntil.

import "fmt"

// Config is what the user chose: the machine being modelled. It is never changed by a run.
type Config struct {
	// ClockHz is the core clock. Pentium 4 2.6 GHz (paper 5.1.1).
	ClockHz int64
	// CPIMilli is the average cycles per instruction of the search loop, in thousandths.
	// Assumption: 1000 (one instruction per cycle). The Pentium 4 retires up to three µops a
	// cycle, but the loop is gcc -O0 code (paper 5.1.1: "-Wall", no -O) that keeps every
	// variable on the stack; no P4 measurement of it exists, so this is the one value in the
	// model that is a round-number estimate rather than a datasheet figure. docs/search.md
	// shows how the LHS result scales with it.
	CPIMilli int64

	// LineBytes is the cache line. 64 bytes (Optimization Manual Table 1-1, L1 and L2).
	LineBytes int
	// L1Bytes, L1Ways, L1LatencyCycles: first-level data cache of CPUID model 2 (Northwood):
	// 8 KB, 4-way, integer load-use latency 2 clocks (Table 1-1).
	L1Bytes, L1Ways, L1LatencyCycles int
	// L2Bytes, L2Ways, L2LatencyCycles: second-level cache of model 2: 512 KB (paper 5.1.1,
	// Table 1-1 note 2), 8-way, 7 clocks (Table 1-1). Replacement is LRU (the manual says
	// pseudo-LRU).
	L2Bytes, L2Ways, L2LatencyCycles int

	// AdjacentLine: a second-level miss also fetches the other 64-byte line of its 128-byte
	// sector (Table 1-1 note 1: "each read due to a cache miss fetches a sector, consisting of
	// two adjacent cache lines"). This is the "128-byte effective line" of paper 5.1.4.
	AdjacentLine bool
	// StreamPrefetch enables the hardware data prefetcher (Optimization Manual chapter 6):
	// two successive second-level misses whose distance is within StreamTriggerBytes start a
	// stream; it then stays StreamAheadBytes ahead of the current access, fills the second-level
	// cache only, follows one stream per StreamPageBytes page, at most StreamMax streams, never
	// crosses a page, and ignores uncached memory.
	StreamPrefetch     bool
	StreamTriggerBytes int // 256 for CPUID models 0-2 (Table 1-2)
	StreamAheadBytes   int // 256 ("attempts to stay 256 bytes ahead")
	StreamPageBytes    int // 4096
	StreamMax          int // 8 streams

	// MemLatencyPs is a main-memory access that misses every cache, from the load to the
	// data in a register: about 100 ns (paper 5.1.4, read off the LHS curve at depth 0; the
	// Optimization Manual, Table 1-1 text, gives 12 processor cycles to reach the bus plus 6-12
	// bus cycles for memory, 65-125 ns on a 100 MHz bus).
	MemLatencyPs int64
	// DeviceLatencyPs is one access to the DIMM-slot NIC (a cacheable LH-buffer line miss, or
	// an uncached register or window read): the same memory bus and the same DDR timing the
	// FPGA has to meet, so the same 100 ns (paper 5.1.4: the depth-0 LHS search is one such
	// access).
	DeviceLatencyPs int64
	// LineTransferPs is the memory bus busy time for one 64-byte line: PC1600 (DDR-200) moves
	// 8 bytes per transfer at 200 MT/s, 1.6 GB/s, so 40 ns a line. It bounds how fast any
	// stream of misses can go, prefetched or not.
	LineTransferPs int64
	// UCWritePs is one uncached store (a NIC register write): the strongly ordered store
	// waits for its front-side-bus write transaction, which the chipset posts. Assumption:
	// 3 bus clocks of the 100 MHz FSB base clock, 30 ns.
	UCWritePs int64
	// UCChunkBytes is the largest uncached access: uncacheable reads and writes move in
	// separate 8-byte chunks (Optimization Manual, text of Table 1-1).
	UCChunkBytes int
	// FlushCycles is one clflush: on the order of 12 processor cycles to get to the bus and
	// back (Optimization Manual, text of Table 1-1).
	FlushCycles int

	// The out-of-order core. A cacheable load does not hold up the instructions after it:
	// the front end goes on issuing at CPIMilli while the load is served, and only the
	// core's buffers bound how far it gets ahead of a load still waiting for its data. Zero
	// ROBEntries makes the model in order (every load waits for its data before the next
	// instruction), as it was before issue 26.
	//
	// ROBEntries is the µops between allocation and retirement: "up to 126 instructions in
	// flight" (Intel 64 and IA-32 Architectures Software Developer's Manual, vol. 1, section
	// 2.2.2, the Intel NetBurst microarchitecture). Retirement is in order, so an instruction
	// 126 after a load that has not returned cannot be allocated. The model counts one µop an
	// instruction: the search loop's instructions are simple moves, compares and branches.
	ROBEntries int
	// LoadBuffers: a load holds a load buffer from allocation to retirement; "there are 48
	// load buffers and 24 store buffers" (Optimization Manual, p. 1-24, "Loads and Stores").
	LoadBuffers int
	// MaxLoadMisses is the first-level misses served at once: "the Pentium 4 processor
	// supports up to four (or eight for ... family 15, model 3) outstanding load misses that
	// can be serviced either by on-chip caches or by memory" (Optimization Manual, p. 1-25).
	// Model 2 (Northwood, the paper's 2.6 GHz part with 512 KB L2): four. A fifth miss waits
	// for the first of them to return; the front end does not.
	MaxLoadMisses int
}

// Pentium4 is the paper's host: Pentium 4 2.6 GHz, L2 512 KB, PC1600 DDR, DIMMnet-2 in a
// DIMM slot (paper 5.1.1).
func Pentium4() Config {
	return Config{
		ClockHz:            2_600_000_000,
		CPIMilli:           1000,
		LineBytes:          64,
		L1Bytes:            8 << 10,
		L1Ways:             4,
		L1LatencyCycles:    2,
		L2Bytes:            512 << 10,
		L2Ways:             8,
		L2LatencyCycles:    7,
		AdjacentLine:       true,
		StreamPrefetch:     true,
		StreamTriggerBytes: 256,
		StreamAheadBytes:   256,
		StreamPageBytes:    4096,
		StreamMax:          8,
		MemLatencyPs:       100_000,
		DeviceLatencyPs:    100_000,
		LineTransferPs:     40_000,
		UCWritePs:          30_000,
		UCChunkBytes:       8,
		FlushCycles:        12,
		ROBEntries:         126,
		LoadBuffers:        48,
		MaxLoadMisses:      4,
	}
}

// Validate reports the first parameter that cannot work.
func (c Config) Validate() error {
	pow2 := func(n int) bool { return n > 0 && n&(n-1) == 0 }
	switch {
	case c.ClockHz <= 0:
		return fmt.Errorf("hostcpu: clock %d Hz", c.ClockHz)
	case c.CPIMilli <= 0:
		return fmt.Errorf("hostcpu: CPI %d/1000", c.CPIMilli)
	case !pow2(c.LineBytes):
		return fmt.Errorf("hostcpu: line %d bytes is not a power of two", c.LineBytes)
	case c.L1Ways <= 0 || c.L1Bytes%(c.L1Ways*c.LineBytes) != 0 || !pow2(c.L1Bytes/(c.L1Ways*c.LineBytes)):
		return fmt.Errorf("hostcpu: L1 %d bytes / %d ways does not make a power-of-two set count", c.L1Bytes, c.L1Ways)
	case c.L2Ways <= 0 || c.L2Bytes%(c.L2Ways*c.LineBytes) != 0 || !pow2(c.L2Bytes/(c.L2Ways*c.LineBytes)):
		return fmt.Errorf("hostcpu: L2 %d bytes / %d ways does not make a power-of-two set count", c.L2Bytes, c.L2Ways)
	case c.StreamPrefetch && (c.StreamPageBytes < c.LineBytes || c.StreamMax <= 0 || c.StreamAheadBytes < c.LineBytes):
		return fmt.Errorf("hostcpu: stream prefetcher page %d, ahead %d, streams %d", c.StreamPageBytes, c.StreamAheadBytes, c.StreamMax)
	case c.MemLatencyPs <= 0 || c.DeviceLatencyPs <= 0 || c.LineTransferPs < 0 || c.UCWritePs < 0:
		return fmt.Errorf("hostcpu: latencies must be positive")
	case c.UCChunkBytes <= 0:
		return fmt.Errorf("hostcpu: uncached chunk %d bytes", c.UCChunkBytes)
	case c.ROBEntries < 0 || c.ROBEntries > 0 && (c.LoadBuffers <= 0 || c.MaxLoadMisses <= 0):
		return fmt.Errorf("hostcpu: out-of-order core of %d µops, %d load buffers, %d outstanding misses", c.ROBEntries, c.LoadBuffers, c.MaxLoadMisses)
	}
	return nil
}

// CyclesPs converts core cycles to picoseconds, rounding to the nearest.
func (c Config) CyclesPs(cycles int64) int64 {
	return (cycles*1_000_000_000_000 + c.ClockHz/2) / c.ClockHz
}
