package checkpoint_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/checkpoint"
	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/drivers"
	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/hw"
)

// scenario is what the test run was: enough for the child process to rebuild the device.
type scenario struct {
	Model string
	Board gosim.BoardConfig
	Host  drivers.Config
	Until uint64 // last board cycle to run to
}

// message is n bytes with an MPI-like envelope whose size field (byte 12) is n.
func message(rng *gosim.Rand, n int) []byte {
	b := make([]byte, max(n, 16))
	for i := range b {
		b[i] = byte(rng.Uint64())
	}
	binary.LittleEndian.PutUint32(b[12:], uint32(n))
	return b[:n]
}

// drive runs the scenario's first part through the host driver and then queues host bus
// traffic that is still in flight many cycles later: posted window writes and a VS, a VL
// whose memory reads are outstanding, posted reads of LH entries, and a long message
// streaming in. It returns at a cycle where all of that is pending.
func drive(t *testing.T, b *gosim.Board, sc scenario) {
	h, err := drivers.NewHost(b, sc.Host)
	require.NoError(t, err)
	rng := gosim.NewRand(sc.Board.Seed)
	for i := 0; i < 40; i++ {
		require.NoError(t, b.Inject(message(rng, 1+rng.Intn(300))))
	}
	require.NoError(t, b.Run(600))
	for seq := uint32(0); seq < 6; seq++ {
		e, err := h.ReadEntry(seq)
		require.NoError(t, err)
		_, err = h.Message(e)
		require.NoError(t, err)
		require.NoError(t, h.Consume(seq))
	}
	require.NoError(t, h.Store(0x100000, bytes.Repeat([]byte("checkpoint"), 40)))

	for i := 0; i < 64; i++ {
		b.Post(hw.WriteWindowBase+uint32(4*i), uint32(rng.Uint64()))
	}
	for _, w := range [][2]uint32{{hw.RegVecMemAddr, 0x200000}, {hw.RegVecWinOff, 0}, {hw.RegVecLen, 256}, {hw.RegVecCmd, hw.VecOpVS}} {
		b.Post(w[0], w[1])
	}
	require.NoError(t, b.Run(100))
	for _, w := range [][2]uint32{{hw.RegVecMemAddr, 0x100000}, {hw.RegVecWinOff, 512}, {hw.RegVecLen, 400}, {hw.RegVecCmd, hw.VecOpVL}} {
		b.Post(w[0], w[1])
	}
	var sink [48]uint32
	for i := range sink {
		b.PostRead(hw.LHBase+uint32(4*i), &sink[i])
	}
	require.NoError(t, b.Inject(message(rng, 3000)))
	require.NoError(t, b.Run(12))
	require.NotZero(t, b.HostPending(), "host requests in flight at the checkpoint")
	require.True(t, b.Memory().Busy(), "memory reads in flight at the checkpoint")
	require.NotZero(t, b.Pending(), "messages still streaming in at the checkpoint")
}

// record runs b to cycle until, logging every cycle's ports (inputs and outputs), and returns
// the log with the final memory digest and counters.
func record(t *testing.T, b *gosim.Board, until uint64) ([]gosim.Pins, [32]byte, gosim.Counters) {
	var log []gosim.Pins
	b.OnCycle(func(_ uint64, p *gosim.Pins) { log = append(log, *p) })
	for b.Cycle() < until {
		b.Step()
	}
	return log, b.Memory().Digest(), b.Count
}

// outcome is what the child process reports.
type outcome struct {
	Pins   []byte
	Memory [32]byte
	Count  gosim.Counters
}

func pinBytes(log []gosim.Pins) []byte {
	if len(log) == 0 {
		return nil
	}
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(&log[0])), len(log)*int(unsafe.Sizeof(log[0])))...)
}

func pinsFrom(b []byte) []gosim.Pins {
	n := len(b) / int(unsafe.Sizeof(gosim.Pins{}))
	out := make([]gosim.Pins, n)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(b)), b)
	return out
}

// TestRestoreHelper is the child process: it restores the checkpoint named in the
// environment into a fresh device and runs it on.
func TestRestoreHelper(t *testing.T) {
	in, out := os.Getenv("LHSIM_CHECKPOINT_IN"), os.Getenv("LHSIM_CHECKPOINT_OUT")
	if in == "" {
		t.Skip("run by TestRestoreInNewProcess")
	}
	f, err := checkpoint.Read(in)
	require.NoError(t, err)
	var sc scenario
	require.NoError(t, json.Unmarshal(f.Meta, &sc))
	b, err := openBoard(device.Config{Model: device.Model(sc.Model), Board: sc.Board})
	require.NoError(t, err)
	require.NoError(t, f.Restore(b))
	log, mem, count := record(t, b, sc.Until)
	require.NoError(t, b.Close())
	data, err := json.Marshal(outcome{Pins: pinBytes(log), Memory: mem, Count: count})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(out, data, 0o644))
}

// TestRestoreInNewProcess saves a running co-simulation at cycle N with host requests,
// memory reads and a message in flight, restores it in a new process and runs it to M: every
// port on every cycle, the counters and the memory must be those of the uninterrupted run.
func TestRestoreInNewProcess(t *testing.T) {
	for _, model := range []string{"rtl", "go", "lockstep"} {
		t.Run(model, func(t *testing.T) {
			sc := scenario{
				Model: model,
				Board: gosim.BoardConfig{Seed: 7, IdlePercent: 20,
					Memory: gosim.SODIMMParams{ReadLatency: 40, MaxOutstanding: 8, BusyPercent: 15}},
				Host: drivers.Config{LHS: true, SizePos: 12, SplitPos: 32, MaxMsg: 65535, TailSize: 4096},
			}
			open := func() *gosim.Board {
				b, err := openBoard(device.Config{Model: device.Model(model), Board: sc.Board})
				require.NoError(t, err)
				return b
			}

			// The uninterrupted run.
			ref := open()
			drive(t, ref, sc)
			n := ref.Cycle()
			sc.Until = n + 4000
			want, wantMem, wantCount := record(t, ref, sc.Until)
			require.NoError(t, ref.Close())

			// The same run, saved at N and then run on: saving must not disturb it.
			b := open()
			drive(t, b, sc)
			require.Equal(t, n, b.Cycle())
			f, err := checkpoint.Capture(b, sc, nil)
			require.NoError(t, err)
			path := filepath.Join(t.TempDir(), "run.ckpt")
			require.NoError(t, f.Write(path))
			after, afterMem, _ := record(t, b, sc.Until)
			require.NoError(t, b.Close())
			requireSamePins(t, want, after, n)
			require.Equal(t, wantMem, afterMem)

			// Restored in a new process.
			out := filepath.Join(t.TempDir(), "outcome.json")
			cmd := exec.Command(os.Args[0], "-test.run=^TestRestoreHelper$", "-test.count=1")
			cmd.Env = append(os.Environ(), "LHSIM_CHECKPOINT_IN="+path, "LHSIM_CHECKPOINT_OUT="+out)
			msg, err := cmd.CombinedOutput()
			require.NoError(t, err, "child process:\n%s", msg)
			data, err := os.ReadFile(out)
			require.NoError(t, err)
			var got outcome
			require.NoError(t, json.Unmarshal(data, &got))
			requireSamePins(t, want, pinsFrom(got.Pins), n)
			require.Equal(t, wantCount, got.Count, "counters")
			require.Equal(t, wantMem, got.Memory, "memory contents")
			st, err := os.Stat(path)
			require.NoError(t, err)
			t.Logf("%s: checkpoint at cycle %d: %d bytes; %d cycles after it identical", model, n, st.Size(), len(want))
		})
	}
}

// requireSamePins compares two port logs cycle by cycle, inputs and outputs.
func requireSamePins(t *testing.T, want, got []gosim.Pins, from uint64) {
	t.Helper()
	require.Equal(t, len(want), len(got), "cycles run after the checkpoint")
	for i := range want {
		if want[i] != got[i] {
			d := gosim.DiffOutputs(&want[i], &got[i])
			if d == "" {
				d = fmt.Sprintf("inputs differ: %+v vs %+v", want[i], got[i])
			}
			t.Fatalf("cycle %d (checkpoint + %d): %s", from+uint64(i), i, d)
		}
	}
}

func TestCheckpointRefusals(t *testing.T) {
	b, err := openBoard(device.Config{Model: device.Model("rtl")})
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, b.Run(10))
	f, err := checkpoint.Capture(b, map[string]string{"model": "rtl"}, []byte("run"))
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, f.Encode(&buf))

	t.Run("round trip", func(t *testing.T) {
		g, err := checkpoint.Decode(bytes.NewReader(buf.Bytes()))
		require.NoError(t, err)
		require.Equal(t, f.Cycle, g.Cycle)
		require.JSONEq(t, string(f.Meta), string(g.Meta))
		require.Equal(t, f.Board, g.Board)
		require.Equal(t, f.Run, g.Run)
	})
	t.Run("corrupt", func(t *testing.T) {
		for _, cut := range []int{5, buf.Len() / 2, buf.Len() - 1} {
			_, err := checkpoint.Decode(bytes.NewReader(buf.Bytes()[:cut]))
			require.ErrorIs(t, err, checkpoint.ErrFormat, "cut at %d", cut)
		}
	})
	t.Run("truncated and over-long say which", func(t *testing.T) {
		for _, cut := range []int{len("lhsim checkpoint 1\n") + 3, buf.Len() / 2, buf.Len() - 1} {
			_, err := checkpoint.Decode(bytes.NewReader(buf.Bytes()[:cut]))
			require.ErrorContains(t, err, "(truncated: the file ends ", "cut at %d", cut)
		}
		for _, extra := range [][]byte{{0}, []byte("junk"), bytes.Repeat([]byte{0x1f, 0x8b}, 20), buf.Bytes()} {
			_, err := checkpoint.Decode(bytes.NewReader(append(bytes.Clone(buf.Bytes()), extra...)))
			require.ErrorIs(t, err, checkpoint.ErrFormat)
			require.ErrorContains(t, err, fmt.Sprintf("(%d bytes after the end of the checkpoint)", len(extra)))
		}
	})
	t.Run("unwritable path", func(t *testing.T) {
		dir := t.TempDir()
		for _, path := range []string{"/nonexistent/dir/run.ckpt", dir} {
			err := checkpoint.CanWrite(path)
			require.ErrorContains(t, err, "checkpoint: cannot write "+path+": ")
			err = f.Write(path)
			require.ErrorContains(t, err, "checkpoint: cannot write "+path+": ")
			require.NotContains(t, err.Error(), ".tmp", "the temporary file means nothing to the user")
		}
		// What a process killed while saving leaves is cleared by the next save.
		path := filepath.Join(dir, "run.ckpt")
		require.NoError(t, os.WriteFile(path+".tmp", []byte("half a checkpoint"), 0o644))
		require.NoError(t, checkpoint.CanWrite(path))
		require.NoFileExists(t, path+".tmp")
		require.NoError(t, os.WriteFile(path+".tmp", []byte("half a checkpoint"), 0o644))
		require.NoError(t, f.Write(path))
		require.NoFileExists(t, path+".tmp")
		left, err := filepath.Glob(filepath.Join(dir, "*"))
		require.NoError(t, err)
		require.Equal(t, []string{path}, left)
		_, err = checkpoint.Read(path)
		require.NoError(t, err)
	})
	t.Run("other core", func(t *testing.T) {
		g, err := openBoard(device.Config{Model: device.Model("go")})
		require.NoError(t, err)
		defer g.Close()
		require.ErrorIs(t, f.Restore(g), gosim.ErrState)
	})
	t.Run("other model parameters", func(t *testing.T) {
		a, err := openBoard(device.Config{Model: device.Model("go"), Entries: 64})
		require.NoError(t, err)
		defer a.Close()
		h, err := checkpoint.Capture(a, nil, nil)
		require.NoError(t, err)
		g, err := openBoard(device.Config{Model: device.Model("go")})
		require.NoError(t, err)
		defer g.Close()
		require.ErrorIs(t, h.Restore(g), gosim.ErrState)
	})
	t.Run("same point twice", func(t *testing.T) {
		g, err := checkpoint.Capture(b, map[string]string{"model": "rtl"}, []byte("run"))
		require.NoError(t, err)
		require.Equal(t, sha256.Sum256(f.Board), sha256.Sum256(g.Board), "saving twice gives the same state")
		require.False(t, errors.Is(nil, checkpoint.ErrFormat))
	})
}

// openBoard opens a device in this process and returns its board, what checkpoints save.
func openBoard(cfg device.Config) (*gosim.Board, error) {
	l, err := device.OpenLocal(cfg)
	if err != nil {
		return nil, err
	}
	return l.Board, nil
}
