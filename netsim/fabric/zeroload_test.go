package fabric

import (
	"testing"

	"github.com/lhsim/lhsim/netsim"
	"github.com/stretchr/testify/require"
)

// ZeroLoadOf is the closed form for a delivered packet, from the sum the packet kept on its
// way, and from the path when that sum outgrew its 32 bits (links of a millisecond: a
// 3 ms path).
func TestZeroLoadOf(t *testing.T) {
	for _, lat := range []netsim.Time{70 * netsim.Nanosecond, netsim.Millisecond} {
		cfg := DefaultConfig()
		cfg.TorusLinkLatency = []netsim.Time{lat}
		eng, n := build(t, "torus:8", cfg)
		var got []*Packet
		rec := endpointFunc(func(now netsim.Time, p *Packet) { got = append(got, p) })
		for i := range n.Nodes() {
			require.NoError(t, n.Attach(i, rec))
		}
		for d := range n.Nodes() {
			require.NoError(t, n.Inject(0, &Packet{Src: 0, Dst: d, Bytes: 1 + 7*d}))
		}
		eng.Run(netsim.Never)
		require.Len(t, got, n.Nodes())
		far := false
		for _, p := range got {
			want, err := n.ZeroLoadLatency(p.Src, p.Dst, p.Bytes)
			require.NoError(t, err)
			z, err := n.ZeroLoadOf(p)
			require.NoError(t, err)
			require.Equal(t, want, z, "%d to %d, %d bytes, %v links", p.Src, p.Dst, p.Bytes, lat)
			far = far || p.zeroLoad < 0
		}
		require.Equal(t, lat == netsim.Millisecond, far, "a sum past 32 bits falls back to the path (%v links)", lat)
	}
}

type endpointFunc func(now netsim.Time, p *Packet)

func (f endpointFunc) Receive(now netsim.Time, p *Packet) { f(now, p) }
