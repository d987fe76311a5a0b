package qsnet

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
)

func env(tag uint32) [16]byte {
	var e [16]byte
	binary.LittleEndian.PutUint32(e[4:], tag)
	return e
}

func tagIs(tag uint32) func([16]byte) bool {
	return func(e [16]byte) bool { return binary.LittleEndian.Uint32(e[4:]) == tag }
}

func TestSearchCostsOneDRAMAccessPerRecord(t *testing.T) {
	cfg := Default()
	for _, depth := range []int{0, 1, 7, 100} {
		t.Run("", func(t *testing.T) {
			q, err := New(cfg)
			require.NoError(t, err)
			for i := 0; i < depth; i++ {
				q.Arrive(env(1))
			}
			q.Arrive(env(2))
			q.Arrive(env(1))
			d, ps, err := q.Search(tagIs(2), false)
			require.NoError(t, err)
			require.Equal(t, depth, d)
			require.Equal(t, cfg.StartPs+int64(depth+1)*cfg.DRAMLatencyPs, ps)
			require.Equal(t, uint64(depth+1), q.DRAMAccesses())
		})
	}
}

func TestSlowProcessorShows(t *testing.T) {
	cfg := Default()
	cfg.CompareInstr = 40 // 200 ns at 200 MHz: longer than the DRAM access
	q, err := New(cfg)
	require.NoError(t, err)
	q.Arrive(env(1))
	q.Arrive(env(2))
	_, ps, err := q.Search(tagIs(2), false)
	require.NoError(t, err)
	require.Equal(t, cfg.StartPs+2*200_000, ps)
}

func TestRemoveKeepsOrder(t *testing.T) {
	q, err := New(Default())
	require.NoError(t, err)
	for _, tag := range []uint32{1, 2, 3, 2, 4} {
		q.Arrive(env(tag))
	}
	d, _, err := q.Search(tagIs(2), true)
	require.NoError(t, err)
	require.Equal(t, 1, d)
	d, _, err = q.Search(tagIs(2), true)
	require.NoError(t, err)
	require.Equal(t, 2, d, "the second 2 is now behind 1 and 3")
	d, _, err = q.Search(tagIs(4), true)
	require.NoError(t, err)
	require.Equal(t, 2, d)
	q.Arrive(env(5))
	d, _, err = q.Search(tagIs(5), true)
	require.NoError(t, err)
	require.Equal(t, 2, d, "appended after the old tail was removed")
	_, _, err = q.Search(tagIs(9), false)
	require.ErrorIs(t, err, ErrNotFound)
	require.Equal(t, 2, q.Len())
}

func TestScattered(t *testing.T) {
	q, err := New(Default())
	require.NoError(t, err)
	for i := 0; i < 64; i++ {
		q.Arrive(env(uint32(i)))
	}
	// Consecutive records must not sit in consecutive lines: that is what defeats caches.
	adjacent := 0
	for a := q.head; q.dram[a].next != 0; a = q.dram[a].next {
		if d := int64(q.dram[a].next) - int64(a); d == int64(q.cfg.RecordBytes) {
			adjacent++
		}
	}
	require.Less(t, adjacent, 4)
}
