package session_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lhsim/lhsim/checkpoint"
	"github.com/lhsim/lhsim/device"
	"github.com/lhsim/lhsim/session"
)

// fuzzRun is the short run FuzzCheckpoint corrupts checkpoints of: its uninterrupted result
// and a checkpoint file taken half way.
func fuzzRun(f *testing.F) (session.Result, []byte) {
	cfg := session.DefaultConfig(24)
	cfg.Model = device.Go
	cfg.MaxLen = 300
	cfg.Board.IdlePercent = 20
	ctx := context.Background()
	s, err := session.New(cfg, "")
	if err != nil {
		f.Fatal(err)
	}
	if _, err := s.Run(ctx, ^uint64(0)); err != nil {
		f.Fatal(err)
	}
	want := s.Result()
	s.Close()
	s, err = session.New(cfg, "")
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Run(ctx, want.Cycles/2); err != nil {
		f.Fatal(err)
	}
	path := filepath.Join(f.TempDir(), "half.ckpt")
	if err := s.Save(path); err != nil {
		f.Fatal(err)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return want, file
}

// FuzzCheckpoint resumes corrupted checkpoints. mode 0 damages the file itself (cut at off,
// or patch XORed in at off): it must be refused as not a checkpoint (checkpoint.ErrFormat),
// never panic, unless the damage is to bytes that carry nothing (the gzip header's time
// stamp), when it resumes the same checkpoint. Modes 1-3 edit one part (the run description, the board state, the run's
// own state) and write the file again with a good checksum, as a deliberate hand edit
// would: the resume is refused with an error, or the resumed run goes on and ends (done or
// with an error) within a bounded number of cycles; it never panics or hangs. (Such an edit
// can change the result without an error: a byte of SO-DIMM or of the digest's state is
// as valid as any other, and only the checksum, which the edit recomputed, could tell.)
// Replay a failure: go test -run 'FuzzCheckpoint/<file>' ./session/ (the input is saved
// under testdata/fuzz/FuzzCheckpoint).
func FuzzCheckpoint(f *testing.F) {
	want, file := fuzzRun(f)
	good, err := checkpoint.Decode(bytes.NewReader(file))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(byte(0), uint32(len(file)/2), []byte{})
	f.Add(byte(0), uint32(40), []byte{0x55})
	f.Add(byte(1), uint32(3), []byte(`"rtl"`))
	f.Add(byte(2), uint32(100), []byte{0xff, 0xff, 0xff})
	f.Add(byte(3), uint32(10), []byte(`9999`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, mode byte, off uint32, patch []byte) {
		var data []byte
		part := int(mode % 4)
		if part == 0 {
			data = bytes.Clone(file)
			if len(patch) == 0 {
				data = data[:int(off)%len(data)]
			} else {
				for i, b := range patch {
					data[(int(off)+i)%len(data)] ^= b
				}
			}
		} else {
			ed := *good
			fields := []*[]byte{(*[]byte)(&ed.Meta), &ed.Board, &ed.Run}
			p := bytes.Clone(*fields[part-1])
			at := int(off) % (len(p) + 1)
			p = append(p[:at:at], append(patch, p[min(len(p), at+len(patch)):]...)...)
			*fields[part-1] = p
			var b bytes.Buffer
			if err := ed.Encode(&b); err != nil {
				t.Fatal(err)
			}
			data = b.Bytes()
		}
		path := filepath.Join(dir, "f.ckpt")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := session.Resume(path, "")
		if bytes.Equal(data, file) {
			if err != nil {
				t.Fatalf("the good checkpoint was refused: %v", err)
			}
			s.Close()
			return
		}
		if part == 0 {
			if err == nil {
				// Only bytes gzip does not check (its header's time stamp, OS) may change.
				s.Close()
				got, derr := checkpoint.Decode(bytes.NewReader(data))
				if derr != nil || got.Cycle != good.Cycle || !bytes.Equal(got.Meta, good.Meta) ||
					!bytes.Equal(got.Board, good.Board) || !bytes.Equal(got.Run, good.Run) {
					t.Fatalf("a damaged file was resumed\nmode %d off %d patch %x", mode, off, patch)
				}
				return
			}
			if !errors.Is(err, checkpoint.ErrFormat) {
				t.Fatalf("a damaged file was not refused as not a checkpoint: %v\nmode %d off %d patch %x", err, mode, off, patch)
			}
			return
		}
		if err != nil {
			return
		}
		defer s.Close()
		cfg := s.Config()
		if cfg.Model != device.Go || cfg.Messages > 1000 || cfg.MaxLen > 4096 {
			return // a run description edited into another (longer) run: not this test's
		}
		done, err := s.Run(context.Background(), want.Cycles*4+cfg.Patience+1_000_000)
		if err == nil && done && s.Checked() != cfg.Messages {
			t.Fatalf("resumed run done after %d of %d messages\nmode %d off %d patch %x", s.Checked(), cfg.Messages, mode, off, patch)
		}
	})
}
