package hostcpu

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const devBase = 0x1_0000_0000 // a DIMM-slot NIC region for the tests

func newCPU(t *testing.T, mod func(*Config)) *CPU {
	t.Helper()
	cfg := Pentium4()
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg)
	require.NoError(t, err)
	require.NoError(t, c.Map(Region{Name: "lh", Base: devBase, Size: 1 << 20, Cacheable: true, Device: true}))
	require.NoError(t, c.Map(Region{Name: "regs", Base: devBase + 1<<20, Size: 4096, Device: true}))
	return c
}

// timed returns how long f took on c.
func timed(c *CPU, f func()) int64 {
	t0 := c.Now()
	f()
	return c.Now() - t0
}

func TestMissThenHit(t *testing.T) {
	c := newCPU(t, nil)
	cfg := c.Config()
	miss := timed(c, func() { c.Load(devBase, 16) })
	require.Equal(t, cfg.DeviceLatencyPs, miss, "a cold line costs one device access")
	hit := timed(c, func() { c.Load(devBase+16, 16) })
	require.Equal(t, cfg.CyclesPs(int64(cfg.L1LatencyCycles)), hit, "same line again: first-level hit")
	st := c.Stats()
	require.Equal(t, uint64(1), st.Misses)
	require.Equal(t, uint64(1), st.L1Hits)
}

func TestMainMemoryLatency(t *testing.T) {
	c := newCPU(t, nil)
	require.Equal(t, c.Config().MemLatencyPs, timed(c, func() { c.Load(0x4000, 4) }))
}

func TestAdjacentLine(t *testing.T) {
	for _, tc := range []struct {
		name     string
		adjacent bool
		wantHit  bool
	}{
		{"sector fetch on", true, true},
		{"sector fetch off", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCPU(t, func(cfg *Config) { cfg.AdjacentLine = tc.adjacent; cfg.StreamPrefetch = false })
			c.Load(devBase, 4)
			c.Advance(1_000_000) // let any prefetch land
			d := timed(c, func() { c.Load(devBase+64, 4) })
			if tc.wantHit {
				require.Equal(t, c.Config().CyclesPs(int64(c.Config().L2LatencyCycles)), d, "the other half of the 128-byte sector is in L2")
			} else {
				require.Equal(t, c.Config().DeviceLatencyPs, d)
			}
		})
	}
}

func TestStreamPrefetch(t *testing.T) {
	// Walk 64-byte entries upwards, with some compute between them: after the trigger, every
	// later line of the page must come from the second level (already prefetched), never
	// a demand miss, and the rate is bounded by the bus, not the latency. On the in-order core
	// the prefetcher is what makes the walk faster; on the out-of-order one four overlapping
	// misses already fill the bus, and the walk without the stream is no slower.
	run := func(stream bool, rob int) (Stats, int64) {
		c := newCPU(t, func(cfg *Config) { cfg.StreamPrefetch = stream; cfg.ROBEntries = rob })
		d := timed(c, func() {
			for i := 0; i < 64; i++ { // one 4 KB page
				c.Load(devBase+uint64(64*i), 16)
				c.Compute(30)
			}
		})
		return c.Stats(), d
	}
	for _, rob := range []int{0, Pentium4().ROBEntries} {
		on, dOn := run(true, rob)
		off, dOff := run(false, rob)
		require.Equal(t, uint64(2), on.Misses, "two misses trigger the stream; the rest is prefetched")
		require.Equal(t, uint64(32), off.Misses, "adjacent-line only: one miss per 128-byte sector")
		if rob == 0 {
			require.Less(t, dOn, dOff)
		} else {
			require.LessOrEqual(t, dOn, dOff)
		}
		// Bandwidth floor: 64 lines cannot move faster than 64 line transfers.
		require.GreaterOrEqual(t, dOn, 63*Pentium4().LineTransferPs)
		require.GreaterOrEqual(t, dOff, 63*Pentium4().LineTransferPs)
	}
}

func TestOutOfOrderHidesHitLatency(t *testing.T) {
	// Four loads from a line in the first level, then the 36 instructions of the -O0 search
	// loop: in order each load's 2 cycles come on top; out of order they overlap the loop.
	cfg := Pentium4()
	for _, tc := range []struct {
		rob  int
		want int64
	}{{0, cfg.CyclesPs(36) + 4*cfg.CyclesPs(2)}, {126, cfg.CyclesPs(36)}} {
		c := newCPU(t, func(cfg *Config) { cfg.ROBEntries = tc.rob })
		c.Load(devBase, 16)
		c.Advance(1_000_000)
		d := timed(c, func() {
			for i := 0; i < 4; i++ {
				c.Load(devBase+uint64(4*i), 4)
			}
			c.Compute(36)
		})
		require.Equal(t, tc.want, d, "ROB %d", tc.rob)
	}
}

func TestOutOfOrderMissLimit(t *testing.T) {
	// Independent misses to lines in different pages (no prefetch, no bus limit): they
	// overlap MaxLoadMisses at a time.
	for _, max := range []int{1, 4, 8} {
		c := newCPU(t, func(cfg *Config) {
			cfg.MaxLoadMisses = max
			cfg.LineTransferPs = 0
			cfg.AdjacentLine, cfg.StreamPrefetch = false, false
		})
		d := timed(c, func() {
			for i := 0; i < 16; i++ {
				c.Load(devBase+uint64(i)*8192, 4)
			}
		})
		require.Equal(t, int64((16+max-1)/max)*c.Config().DeviceLatencyPs, d, "%d misses at once", max)
	}
}

func TestOutOfOrderReorderBuffer(t *testing.T) {
	// A miss, then 300 instructions: the 126th after the load cannot be allocated until the
	// load retires, so 125 instructions hide under the miss and 175 come after it.
	c := newCPU(t, nil)
	d := timed(c, func() {
		c.Load(devBase, 4)
		c.Compute(300)
	})
	require.Equal(t, c.Config().DeviceLatencyPs+c.Config().CyclesPs(175), d)
	// A loop shorter than the buffer hides under the miss entirely.
	c = newCPU(t, nil)
	d = timed(c, func() {
		c.Load(devBase, 4)
		c.Compute(100)
	})
	require.Equal(t, c.Config().DeviceLatencyPs, d)
}

func TestOutOfOrderLoadBuffers(t *testing.T) {
	// With misses unbounded, 49 loads in a row: the 49th waits for a load buffer, which
	// the first frees when it retires.
	c := newCPU(t, func(cfg *Config) {
		cfg.MaxLoadMisses = 1000
		cfg.LineTransferPs = 0
		cfg.AdjacentLine, cfg.StreamPrefetch = false, false
	})
	lat := c.Config().DeviceLatencyPs
	d := timed(c, func() {
		for i := 0; i < 48; i++ {
			c.Load(devBase+uint64(i)*8192, 4)
		}
	})
	require.Equal(t, lat, d, "48 loads fit the load buffers")
	c.Advance(0)
	d = timed(c, func() {
		for i := 0; i < 49; i++ {
			c.Load(0x100_0000+uint64(i)*8192, 4)
		}
	})
	require.Equal(t, 2*c.Config().MemLatencyPs, d, "the 49th waits for the first to retire")
}

func TestOutOfOrderUncachedWaits(t *testing.T) {
	// An uncached read is not speculative: it starts when the miss before it is back.
	c := newCPU(t, nil)
	regs := uint64(devBase + 1<<20)
	d := timed(c, func() {
		c.Load(devBase, 4)
		c.Load(regs, 4)
	})
	require.Equal(t, 2*c.Config().DeviceLatencyPs, d)
}

func TestStreamStopsAtPage(t *testing.T) {
	c := newCPU(t, nil)
	for i := 0; i < 64; i++ {
		c.Load(devBase+uint64(64*i), 4)
	}
	c.ResetStats()
	c.Load(devBase+4096, 4)
	require.Equal(t, uint64(1), c.Stats().Misses, "the prefetcher does not cross a 4 KB page")
}

func TestFlush(t *testing.T) {
	c := newCPU(t, nil)
	c.Load(devBase, 4)
	c.Flush(devBase)
	d := timed(c, func() { c.Load(devBase, 4) })
	require.Equal(t, c.Config().DeviceLatencyPs, d, "a flushed line misses again")
	require.Equal(t, uint64(1), c.Stats().Flushes)
}

func TestUncached(t *testing.T) {
	c := newCPU(t, nil)
	regs := uint64(devBase + 1<<20)
	d := timed(c, func() { c.Load(regs, 16) })
	require.Equal(t, 2*c.Config().DeviceLatencyPs, d, "16 bytes uncached: two 8-byte bus reads")
	d = timed(c, func() { c.Load(regs, 4) })
	require.Equal(t, c.Config().DeviceLatencyPs, d, "uncached reads are never cached")
	d = timed(c, func() { c.Store(regs, 4) })
	require.Equal(t, c.Config().UCWritePs, d)
}

func TestPollUntil(t *testing.T) {
	c := newCPU(t, nil)
	regs := uint64(devBase + 1<<20)
	lat := c.Config().DeviceLatencyPs
	for _, tc := range []struct {
		doneAt    int64
		wantPolls int
	}{
		{0, 1},
		{lat / 2, 1},
		{lat/2 + 1, 2},
		{600_000, 7}, // samples at 50, 150, ..., 650 ns
	} {
		c2 := newCPU(t, nil)
		require.Equal(t, tc.wantPolls, c2.PollUntil(regs, tc.doneAt), "done at %d ps", tc.doneAt)
		require.Equal(t, int64(tc.wantPolls)*lat, c2.Now())
	}
	_ = c
}

func TestDeterministic(t *testing.T) {
	run := func() int64 {
		c := newCPU(t, nil)
		for i := 0; i < 3000; i++ {
			c.Load(devBase+uint64((i*7919)%16384)*64%(1<<20), 16)
			c.Compute(i % 13)
		}
		return c.Now()
	}
	require.Equal(t, run(), run())
}

func TestValidate(t *testing.T) {
	bad := Pentium4()
	bad.L1Ways = 3
	_, err := New(bad)
	require.Error(t, err)
}
