package testbench

import (
	"testing"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/stretchr/testify/require"
)

func TestSmoke(t *testing.T) {
	dev, err := device.Open(config(t, gosim.BoardConfig{}))
	require.NoError(t, err)
	h, err := drivers.NewHost(dev, drivers.Config{LHS: true})
	require.NoError(t, err)
	msgs := [][]byte{envelope(1, 2, 3, 20), envelope(1, 2, 3, 200)}
	for _, m := range msgs {
		require.NoError(t, dev.Inject(m))
	}
	require.NoError(t, dev.RunUntilIdle(10000))
	n, err := h.Produced()
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	for i, m := range msgs {
		e, err := h.ReadEntry(uint32(i))
		require.NoError(t, err)
		got, err := h.Message(e)
		require.NoError(t, err)
		require.Equal(t, m, got)
	}
	require.NoError(t, dev.Close())
}
