package fabric

import (
	"testing"

	"github.com/lhsim/lhsim/netsim"
	"github.com/stretchr/testify/require"
)

// Bad input gets a clear error, never a panic or a silent stop.
func TestBadInput(t *testing.T) {
	eng, n := build(t, "torus:2x2", DefaultConfig())
	for _, c := range []struct {
		p    *Packet
		says string
	}{
		{&Packet{Src: 0, Dst: 4, Bytes: 16}, "destination 4: no such node (the network has 4)"},
		{&Packet{Src: -1, Dst: 0, Bytes: 16}, "source -1: no such node"},
		{&Packet{Src: 0, Dst: 1, Bytes: 0}, "0 bytes: bad packet size (want at least 1)"},
		{&Packet{Src: 0, Dst: 1, Bytes: -5}, "bad packet size"},
		{&Packet{Src: 0, Dst: 1, Bytes: 64*16 + 1}, "must fit a 64-flit buffer whole"},
		{nil, "nil packet"},
	} {
		require.ErrorContains(t, n.Inject(0, c.p), c.says)
	}
	cfg := n.Config()
	require.Equal(t, 64*16, cfg.LargestPacket())
	require.NoError(t, n.Inject(0, &Packet{Src: 0, Dst: 1, Bytes: cfg.LargestPacket()}), "the largest packet goes")
	cfg.MaxPacketBytes = 100
	require.Equal(t, 100, cfg.LargestPacket())
	p := &Packet{Src: 0, Dst: 1, Bytes: 16}
	require.NoError(t, n.Inject(10*ns, p))
	require.ErrorIs(t, n.Inject(10*ns, p), ErrBusy)
	require.ErrorIs(t, n.Inject(5*ns, &Packet{Src: 0, Dst: 1, Bytes: 16}), ErrBadTime)
	require.ErrorIs(t, n.Consumed(0, 1, p), ErrNotHeld, "not yet delivered")
	require.ErrorIs(t, n.Consumed(0, 9, p), ErrBadNode)
	require.ErrorIs(t, n.Attach(4, nil), ErrBadNode)
	eng.Run(netsim.Never)
	require.ErrorIs(t, n.Consumed(eng.Now(), 1, p), ErrNotHeld, "a sink consumed it already")
	require.ErrorIs(t, n.Inject(0, &Packet{Src: 0, Dst: 1, Bytes: 1}), ErrBadTime, "before the engine's now")
	_, err := n.ZeroLoadLatency(0, 7, 16)
	require.ErrorIs(t, err, ErrBadNode)

	for _, s := range []struct{ in, says string }{
		{"", "want crossbar:N"},
		{"torus", "want crossbar:N"},
		{"torus:", "no size"},
		{"torus:0x4", "at least 1"},
		{"torus:4xx4", `size "" is not a number`},
		{"torus:axb", `size "a" is not a number`},
		{"torus:1024x1024x1024", "more than"},
		{"torus:2x2x2x2x2x2x2x2x2", "1 to 8 dimensions"},
		{"fattree:1x3", "want k >= 2"},
		{"fattree:4", "takes KxN"},
		{"fattree:64x64", "more than"},
		{"crossbar:0", "at least 1"},
		{"crossbar:4x4", "one number"},
		{"mesh:4x4", `unknown kind "mesh"`},
	} {
		_, err := ParseTopology(s.in)
		require.ErrorContains(t, err, s.says, "%q", s.in)
	}
	top, err := ParseTopology("torus:4x4")
	require.NoError(t, err)
	for _, c := range []struct {
		mod  func(*Config)
		says string
	}{
		{func(c *Config) { c.VCs = 3 }, "even number of VCs"},
		{func(c *Config) { c.VCs = 0 }, "VCs 0"},
		{func(c *Config) { c.RoutingDelay = -1 }, "RoutingDelay -0.001 ns: want 0 to 1 s"},
		{func(c *Config) { c.SwitchLatency = 2 * netsim.Second }, "SwitchLatency"},
		{func(c *Config) { c.LinkBandwidth = 1e-9 }, "too slow"},
		{func(c *Config) { c.TorusLinkLatency = []netsim.Time{-5} }, "TorusLinkLatency[0]"},
		{func(c *Config) { c.LinkBandwidth = 0 }, "LinkBandwidth 0 GB/s must be positive"},
		{func(c *Config) { c.BufferFlits = 0 }, "BufferFlits 0"},
		{func(c *Config) { c.ClockPeriod = 0; c.FlitBytes = -1 }, "ClockPeriod"},
	} {
		cfg := DefaultConfig()
		c.mod(&cfg)
		_, err := New(&netsim.Engine{}, top, cfg)
		require.ErrorIs(t, err, ErrBadConfig)
		require.ErrorContains(t, err, c.says)
	}
	_, err = New(nil, top, DefaultConfig())
	require.ErrorIs(t, err, ErrBadConfig)
	_, err = ParsePattern("bitrev", top)
	require.ErrorContains(t, err, `unknown pattern "bitrev"`)
	xb, _ := ParseTopology("crossbar:8")
	_, err = ParsePattern("transpose", xb)
	require.ErrorContains(t, err, "not a square")
	tt, _ := ParseTopology("torus:4x8")
	_, err = ParsePattern("transpose", tt)
	require.ErrorContains(t, err, "do not read the same backwards")
	for _, s := range []string{"", "ns", "-1ns", "4 parsecs", "NaN"} {
		_, err := ParseDelay(s, 4*ns)
		require.Error(t, err, "%q", s)
	}
}

func TestParseDelay(t *testing.T) {
	for _, c := range []struct {
		in   string
		want netsim.Time
	}{{"4", 4 * ns}, {"4ns", 4 * ns}, {"0.6ns", 600}, {"600ps", 600}, {"1.5us", 1500 * ns}, {"1c", 4 * ns}, {"32 cycles", 128 * ns}, {"2cyc", 8 * ns}} {
		got, err := ParseDelay(c.in, 4*ns)
		require.NoError(t, err, c.in)
		require.Equal(t, c.want, got, c.in)
	}
}
