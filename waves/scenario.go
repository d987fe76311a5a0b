package waves

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// LHFull is the marker of the scenario's first cycle with the LH buffer full.
const LHFull = "LH buffer full"

// Recording is what the default scenario did and where its waveform is.
type Recording struct {
	Dump     string
	Save     string
	Cycles   uint64
	Messages int
	Markers  []Marker
}

// envelope is an MPI-like message of n bytes: {source, tag, communicator, size} and a payload
// whose bytes count up from the tag.
func envelope(tag uint32, n int) []byte {
	b := make([]byte, max(n, 16))
	binary.LittleEndian.PutUint32(b[4:], tag)
	binary.LittleEndian.PutUint32(b[12:], uint32(n))
	for i := 16; i < len(b); i++ {
		b[i] = byte(int(tag) + i)
	}
	return b[:n]
}

// Record runs the default scenario on the RTL and writes dir/lhsim.fst and dir/lhsim.gtkw:
// short and long messages read back by the host, the LH buffer filled until the splitter holds
// the network off, released again, then a VS and a VL through the windows.
func Record(dir string) (Recording, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Recording{}, err
	}
	r := Recording{Dump: filepath.Join(dir, "lhsim.fst"), Save: filepath.Join(dir, "lhsim.gtkw")}
	l, err := device.OpenLocal(device.Config{Model: device.RTL, Trace: r.Dump, Board: gosim.BoardConfig{Seed: 1}})
	if err != nil {
		return r, err
	}
	b := l.Board
	err = scenario(b, &r)
	if cerr := b.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return r, fmt.Errorf("waves: trace scenario: %w", err)
	}
	s := ForRun(r.Dump, gosim.DefaultParams, r.Markers)
	return r, s.Write(r.Save)
}

func scenario(b *gosim.Board, r *Recording) error {
	h, err := drivers.NewHost(b, drivers.Config{LHS: true, SizePos: hw.SizePosReset, SplitPos: hw.SplitPosReset, MaxMsg: hw.MaxMsgReset, TailSize: 1 << 16})
	if err != nil {
		return err
	}
	cfg := h.Config()
	ev := NewEvents(Rule{LHS: cfg.LHS, SizePos: cfg.SizePos, MaxMsg: cfg.MaxMsg})
	b.OnCycle(ev.Observe)
	released := uint64(0)
	b.OnCycle(func(c uint64, _ *gosim.Pins) {
		// The commit that fills the buffer is counted in its cycle; full is the next one.
		if b.Count.Commits-released == uint64(h.Entries()) {
			ev.Mark(LHFull, c+1)
		}
	})
	var sent [][]byte
	send := func(m []byte) error {
		sent = append(sent, m)
		return b.Inject(m)
	}
	// consume reads every new entry and its tail, checks it and releases it.
	consume := func() error {
		prod, err := h.Produced()
		if err != nil {
			return err
		}
		for seq := uint32(released); seq < prod; seq++ {
			e, err := h.ReadEntry(seq)
			if err != nil {
				return err
			}
			got, err := h.Message(e)
			if err != nil {
				return err
			}
			if !bytes.Equal(got, sent[seq]) {
				return fmt.Errorf("message %d: the host read other bytes than were sent", seq)
			}
			if err := h.Consume(seq); err != nil {
				return err
			}
			released++
		}
		return nil
	}

	// Short and long messages, back to back.
	for i, n := range []int{20, 300, 56, 57, 1500, 16, 200} {
		if err := send(envelope(uint32(i), n)); err != nil {
			return err
		}
	}
	if err := b.RunUntilIdle(10000); err != nil {
		return err
	}
	if err := consume(); err != nil {
		return err
	}

	// Fill the LH buffer: short messages the host does not take until the splitter has held
	// the network off for a while.
	for i := 0; i < h.Entries()+16; i++ {
		if err := send(envelope(uint32(100+i), 16+i%41)); err != nil {
			return err
		}
	}
	for b.Pending() > 16 {
		if err := b.Run(64); err != nil {
			return err
		}
	}
	if err := b.Run(200); err != nil {
		return err
	}
	if err := consume(); err != nil {
		return err
	}
	if err := b.RunUntilIdle(10000); err != nil {
		return err
	}
	if err := consume(); err != nil {
		return err
	}

	// A VS from the write window to large memory, and a VL back through the read window.
	data := envelope(7, 256)
	if err := h.Store(0x100000, data); err != nil {
		return err
	}
	back, err := h.Fetch(0x100000, len(data))
	if err != nil {
		return err
	}
	if !bytes.Equal(back, data) {
		return fmt.Errorf("VL returned other bytes than the VS stored")
	}
	if err := b.Run(20); err != nil {
		return err
	}
	if _, ok := ev.First(LHFull); !ok {
		return fmt.Errorf("the LH buffer never filled")
	}
	r.Cycles = b.Cycle()
	r.Messages = len(sent)
	r.Markers = ev.Markers(hw.ResetCycles)
	return nil
}
