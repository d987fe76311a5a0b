package lhsnic

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/drivers/mpi"
	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/netsim"
	"github.com/lhsim/lhsim/netsim/cluster"
)

// receiveAll is a host program: the driver and the MPI library on the node's host bus, LHS
// on, receiving every message of an incast newest tag first (each search walks past the
// others), recording when each receive completed and what it got.
type receiveAll struct {
	senders, per int
	firstRead    netsim.Time // engine time the read of ID at 1 µs returned
	done         []netsim.Time
	got          []mpi.Status
}

func (h *receiveAll) program(bus *HostBus) error {
	bus.Sleep(netsim.Microsecond - bus.Now())
	id, err := bus.ReadReg(hw.RegID)
	if err != nil {
		return err
	}
	if id != hw.ID {
		return fmt.Errorf("device ID %#x, want %#x", id, hw.ID)
	}
	h.firstRead = bus.n.eng.Now()
	st, err := mpi.OpenStack(bus, bus.CPU, drivers.Config{LHS: true, TailSize: hw.TailSizeMax})
	if err != nil {
		return err
	}
	e := st.Engine
	if err := e.AddComm(0, h.senders+1); err != nil {
		return err
	}
	for tag := h.per - 1; tag >= 0; tag-- {
		for src := 1; src <= h.senders; src++ {
			r, err := e.Irecv(mpi.Pattern{Source: int32(src), Tag: int32(tag), Comm: 0})
			if err != nil {
				return err
			}
			for !r.Done() {
				if err := bus.WaitCommit(netsim.Millisecond); err != nil {
					return err
				}
				if err := e.Progress(); err != nil {
					return err
				}
			}
			h.done = append(h.done, bus.Now())
			h.got = append(h.got, r.Status())
		}
	}
	return nil
}

// hostIncast runs an incast of per messages from each of 3 senders to rank 0, whose host runs
// receiveAll on the node given by dc.
func hostIncast(t *testing.T, dc device.Config, per int) *receiveAll {
	t.Helper()
	h := &receiveAll{senders: 3, per: per}
	cfg := DefaultConfig()
	cfg.Device, cfg.Program = dc, h.program
	c, rec := machine(t, cfg, 4)
	_, err := c.Run(4, func(r *cluster.Rank) {
		if r.ID() == 0 {
			for range 3 * per {
				r.Recv(cluster.AnySource, cluster.AnyTag)
			}
			return
		}
		for i := range per {
			r.Send(0, i, 16+40*i)
		}
	})
	require.NoError(t, err)
	c.Network().Engine().Run(netsim.Never)
	require.NoError(t, rec.Err())
	require.True(t, rec.Bus().Done(), "the program ended; it waits for %q", rec.Bus().Waiting())
	require.NoError(t, rec.Bus().Err())
	return h
}

// A node's host runs drivers/mpi on its host bus while the network delivers: every receive
// gets its message (source, tag, size), split ones with their tails, in the order posted;
// a register read made at 1 µs goes on the bus at the next cycle and returns at the end of
// the cycle that answers it (two later); and the RTL in this process, the RTL in a plugin
// process and the golden model give the same receive times, to the picosecond.
func TestHostProgramReceivesThroughTheDevice(t *testing.T) {
	const per = 6
	var first []netsim.Time
	for _, dc := range []device.Config{
		{Model: device.RTL, Bridge: device.Cgo},
		{Model: device.RTL, Bridge: device.Plugin},
		{Model: device.Go, Bridge: device.Cgo},
	} {
		h := hostIncast(t, dc, per)
		require.Equal(t, netsim.Microsecond+4*10*netsim.Nanosecond, h.firstRead,
			"%s/%s: posted in cycle 101, answered in 103, the program on at the start of 104", dc.Model, dc.Bridge)
		require.Len(t, h.got, 3*per)
		for i, st := range h.got {
			tag, src := per-1-i/3, 1+i%3
			require.Equal(t, int32(src), st.Source, "%s/%s receive %d", dc.Model, dc.Bridge, i)
			require.Equal(t, int32(tag), st.Tag, "%s/%s receive %d", dc.Model, dc.Bridge, i)
			require.Equal(t, 40*tag, st.Size, "%s/%s receive %d: body bytes (16-byte envelope)", dc.Model, dc.Bridge, i)
			require.NoError(t, st.Err)
		}
		for i := 1; i < len(h.done); i++ {
			require.Less(t, h.done[i-1], h.done[i], "%s/%s: receives complete one after another", dc.Model, dc.Bridge)
		}
		if first == nil {
			first = h.done
			continue
		}
		require.Equal(t, first, h.done, "%s/%s against the RTL in this process", dc.Model, dc.Bridge)
	}
}

// A program that waits for a message that never comes gives up at its limit with an error
// that says what it waited for, and the run ends with it; a program cannot run on the
// transaction-level model, which has no host bus.
func TestHostProgramWaitsHaveLimits(t *testing.T) {
	eng := &netsim.Engine{}
	cfg := DefaultConfig()
	cfg.Device.Model = device.Go
	cfg.Program = func(bus *HostBus) error {
		if _, err := bus.ReadReg(hw.RegLHProd); err != nil {
			return err
		}
		return bus.WaitCommit(5 * netsim.Microsecond)
	}
	n, err := New(eng, cfg)
	require.NoError(t, err)
	defer n.Close()
	eng.Run(netsim.Never)
	require.ErrorIs(t, n.Err(), ErrNoCommit)
	require.ErrorContains(t, n.Err(), "host program")
	require.ErrorContains(t, n.Err(), "the count stays at 0")
	require.InDelta(t, 5.03, eng.Now().Microseconds(), 0.01, "it gave up 5 µs after its read returned")

	// Left waiting when the run ends: Close ends it, and it said what it waited for.
	cfg.Program = func(bus *HostBus) error { return bus.WaitCommit(netsim.Second) }
	eng = &netsim.Engine{}
	n, err = New(eng, cfg)
	require.NoError(t, err)
	eng.Run(netsim.Millisecond)
	require.False(t, n.Bus().Done())
	require.Contains(t, n.Bus().Waiting(), "an entry committed after")
	require.NoError(t, n.Close())
	require.True(t, n.Bus().Done())

	cfg.TLM = true
	_, err = New(&netsim.Engine{}, cfg)
	require.ErrorContains(t, err, "transaction-level model has none")
}

// A node runs ahead of its engine's time up to the next event; with TakenAtTime, Arrive's done
// runs at the engine time the message was taken (the end of the cycle that took its last
// beat), the same whether the node found the take ahead of time or at it; without, it runs
// inside the step that found it, before its time.
func TestTakenAtTime(t *testing.T) {
	for _, at := range []bool{false, true} {
		eng := &netsim.Engine{}
		cfg := DefaultConfig()
		cfg.TLM, cfg.TakenAtTime = true, at
		n, err := New(eng, cfg)
		require.NoError(t, err)
		eng.At(10*netsim.Microsecond, netsim.Func(func(netsim.Time, int64) {}), 0) // room to run ahead
		var took, engAt netsim.Time
		require.NoError(t, n.Arrive(0, mpi.Eager(1, 0, 0, make([]byte, 200)), func(now netsim.Time) { took, engAt = now, eng.Now() }))
		eng.Run(netsim.Never)
		require.NoError(t, n.Err())
		require.Positive(t, took, "the message was taken")
		if at {
			require.Equal(t, took, engAt, "done runs at the time of the take")
		} else {
			require.Less(t, engAt, took, "done runs in the step that ran ahead to the take")
		}
		require.NoError(t, n.Close())
	}
}
