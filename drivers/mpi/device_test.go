package mpi

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
)

// path is one receive path on a real device: the Go golden model unless LHSIM_MODEL says
// otherwise (these tests check the driver; the testbench checks the RTL against the model).
type path struct {
	dev device.Device
	h   *drivers.Host
	m   *HostModel
	e   *Engine
}

func newPath(t *testing.T, lhs bool, tailSize uint32) *path {
	t.Helper()
	return newPathCfg(t, drivers.Config{LHS: lhs, SizePos: 12, TailSize: tailSize})
}

func (p *path) settle(t *testing.T) {
	t.Helper()
	require.NoError(t, p.dev.RunUntilIdle(1_000_000))
}

func body(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return b
}

func forBothPaths(t *testing.T, f func(t *testing.T, lhs bool)) {
	for _, lhs := range []bool{true, false} {
		t.Run(fmt.Sprint("lhs=", lhs), func(t *testing.T) { f(t, lhs) })
	}
}

func TestDeviceLongMessagesThroughPointer(t *testing.T) {
	forBothPaths(t, func(t *testing.T, lhs bool) {
		p := newPath(t, lhs, 0)
		sizes := []int{0, 1, 40, 41, 100, 1000, 4096, 5000}
		for i, n := range sizes {
			require.NoError(t, Sender{Rank: 1, Net: p.dev}.Send(int32(i), 0, body(n, byte(i))))
		}
		p.settle(t)
		// Receive in reverse: every search walks past the others.
		for i := len(sizes) - 1; i >= 0; i-- {
			r, err := p.e.Irecv(Pattern{1, int32(i), 0})
			require.NoError(t, err)
			require.True(t, r.Done())
			require.True(t, bytes.Equal(body(sizes[i], byte(i)), r.Data()), "message %d (%d bytes)", i, sizes[i])
			require.Equal(t, i, r.Status().Depth)
			require.Equal(t, sizes[i], r.Status().Size)
		}
		require.Equal(t, 0, p.e.Pending())
	})
}

func TestDevicePostedAndWildcards(t *testing.T) {
	forBothPaths(t, func(t *testing.T, lhs bool) {
		p := newPath(t, lhs, 0)
		rAny, err := p.e.Irecv(Pattern{AnySource, AnyTag, 3})
		require.NoError(t, err)
		r2, err := p.e.Irecv(Pattern{2, AnyTag, 3})
		require.NoError(t, err)
		require.False(t, rAny.Done())
		require.NoError(t, Sender{Rank: 2, Net: p.dev}.Send(9, 3, []byte("to the first posted")))
		require.NoError(t, Sender{Rank: 2, Net: p.dev}.Send(9, 3, body(300, 1)))
		require.NoError(t, Sender{Rank: 5, Net: p.dev}.Send(9, 3, []byte("unexpected")))
		require.NoError(t, p.e.Wait(r2, func() error { return p.dev.Run(100) }, 1000))
		require.Equal(t, "to the first posted", string(rAny.Data()))
		require.Equal(t, body(300, 1), r2.Data())
		require.NoError(t, p.e.Wait(rAny, nil, 1))
		p.settle(t)
		require.NoError(t, p.e.Progress())
		require.Equal(t, 1, p.e.Pending())
		r, err := p.e.Irecv(Pattern{AnySource, 9, 3})
		require.NoError(t, err)
		require.Equal(t, "unexpected", string(r.Data()))
		require.Equal(t, int32(5), r.Status().Source)
	})
}

// TestDeviceAgainstMemQueue runs the same random traffic through the device and through
// MemQueue and requires identical receives, while the rings wrap many times.
func TestDeviceAgainstMemQueue(t *testing.T) {
	forBothPaths(t, func(t *testing.T, lhs bool) {
		p := newPath(t, lhs, 4096)
		ref := NewMemQueue()
		re := testEngine(NewEngine(ref, nil, DefaultCosts()))
		rng := rand.New(rand.NewPCG(7, 7))
		type pair struct{ dev, ref *Request }
		var pairs []pair
		recv := func(pat Pattern) pair {
			r, err := p.e.Irecv(pat)
			require.NoError(t, err)
			rr, err := re.Irecv(pat)
			require.NoError(t, err)
			require.Equal(t, rr.Done(), r.Done(), "receive %d %+v dev %+v ref %+v pend %d %d", len(pairs), pat, r.Status(), rr.Status(), p.e.Pending(), re.Pending())
			pairs = append(pairs, pair{r, rr})
			return pairs[len(pairs)-1]
		}
		for round := 0; round < 40; round++ {
			n := 1 + rng.IntN(8)
			for i := 0; i < n; i++ {
				src, tag := int32(rng.IntN(3)), int32(rng.IntN(4))
				b := body(rng.IntN(200), byte(round*8+i))
				require.NoError(t, Sender{Rank: src, Net: p.dev}.Send(tag, 0, b))
				require.NoError(t, Sender{Rank: src, Net: ref}.Send(tag, 0, b))
			}
			p.settle(t)
			for i := 0; i < n; i++ {
				recv(Pattern{int32(rng.IntN(4)) - 1, int32(rng.IntN(5)) - 1, 0})
			}
			// Drain what is left so the rings keep turning; the last wildcard stays posted.
			for recv(Pattern{AnySource, AnyTag, 0}).dev.Done() {
			}
		}
		require.NoError(t, p.e.Progress())
		require.NoError(t, re.Progress())
		done := 0
		for i, pr := range pairs {
			require.Equal(t, pr.ref.Done(), pr.dev.Done(), "receive %d", i)
			if pr.dev.Done() {
				done++
				require.Equal(t, pr.ref.Status(), pr.dev.Status(), "receive %d", i)
				require.Equal(t, pr.ref.Data(), pr.dev.Data(), "receive %d", i)
			}
		}
		require.Greater(t, done, 100)
	})
}

func TestDeviceVLTiming(t *testing.T) {
	p := newPath(t, false, 0)
	for i := 0; i < 4; i++ {
		require.NoError(t, Sender{Rank: 0, Net: p.dev}.Send(int32(i), 0, nil))
	}
	p.settle(t)
	require.NoError(t, p.e.Progress())
	_, ok, err := p.e.Iprobe(Pattern{0, 3, 0})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, uint64(4), p.m.VLs)
	perVL := p.m.VLDeviceCycles / p.m.VLs
	// docs/design.md: 35 cycles from the command write to done with the default SO-DIMM (read latency 33).
	require.EqualValues(t, 35, perVL, "device cycles per 16-byte VL")
	require.Greater(t, p.m.VLHostPs/int64(p.m.VLs), int64(perVL)*DeviceCyclePs, "the host sees more than the NIC's part")
	t.Logf("16-byte VL: %d device cycles, %d ps host-visible", perVL, p.m.VLHostPs/int64(p.m.VLs))
}
