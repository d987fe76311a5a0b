// Package checkpoint saves a running co-simulation into one file and brings it back.
package checkpoint

// checkpoint saves a running co-simulation into one file and brings it back, in the
// same process or another: the board and its core (the Verilated RTL through Verilator's
// --savable serialization, the golden model, or both in lockstep), a description of the run
// to rebuild the device from, and the run's own state (its workload and checker).
//
// A restored run is the uninterrupted run: the same outputs on every port, every cycle, and
// the same memory, byte for byte.
//
// File layout: the magic line "lhsim checkpoint 1\n", then a gzip stream holding, each
// length-prefixed, the board cycle, the description (JSON), the board state and the run
// state; then, in files that have them, named sections (a count, and each section's kind
// and data, length-prefixed); and last the SHA-256 of all of them. A file with no sections
// is byte for byte what this format was before sections existed, so older checkpoints load
// unchanged, and runs that are not a board's (a network of InfiniBand HCAs, netsim/ib) keep
// their state in sections of their own kinds with an empty board.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/lhsim/lhsim/gosim"
)

const magic = "lhsim checkpoint 1\n"

// ErrFormat is wrapped by errors about a file that is not a whole checkpoint.
var ErrFormat = errors.New("not an lhsim checkpoint")

// File is one checkpoint.
type File struct {
	Cycle uint64          // board cycle when it was taken
	Meta  json.RawMessage // what the run was: enough to rebuild its device and workload
	Board []byte          // gosim.Board.MarshalState
	Run   []byte          // the run's own state
	// Sections are further parts, each of a kind its reader knows ("ib/node/3"); kinds are
	// unique and not empty. Files written before sections existed have none.
	Sections []Section
}

// Section is a named part of a checkpoint.
type Section struct {
	Kind string
	Data []byte
}

// Section returns the data of the section of kind, and whether there is one.
func (f *File) Section(kind string) ([]byte, bool) {
	for _, s := range f.Sections {
		if s.Kind == kind {
			return s.Data, true
		}
	}
	return nil, false
}

// maxSectionKind bounds a section's kind, so that a damaged count cannot ask for gigabytes.
const maxSectionKind = 256

// checkSections reports sections a reader could not tell apart.
func checkSections(ss []Section) error {
	seen := map[string]bool{}
	for i, s := range ss {
		switch {
		case s.Kind == "":
			return fmt.Errorf("section %d has no kind", i)
		case len(s.Kind) > maxSectionKind:
			return fmt.Errorf("section %d's kind is %d bytes (at most %d)", i, len(s.Kind), maxSectionKind)
		case seen[s.Kind]:
			return fmt.Errorf("two sections of kind %q", s.Kind)
		}
		seen[s.Kind] = true
	}
	return nil
}

// Capture takes a checkpoint of b now; meta describes the run (JSON-encoded) and run is the
// run's own state.
func Capture(b *gosim.Board, meta any, run []byte) (*File, error) {
	m, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	state, err := b.MarshalState()
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	return &File{Cycle: b.Cycle(), Meta: m, Board: state, Run: run}, nil
}

// Restore puts the saved board state into b, a board built from the same description.
func (f *File) Restore(b *gosim.Board) error {
	if err := b.UnmarshalState(f.Board); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if b.Cycle() != f.Cycle {
		return fmt.Errorf("checkpoint: restored board is at cycle %d, the file says %d", b.Cycle(), f.Cycle)
	}
	return nil
}

// Encode writes f.
func (f *File) Encode(w io.Writer) error {
	if err := checkSections(f.Sections); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if _, err := io.WriteString(w, magic); err != nil {
		return err
	}
	z, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	h := sha256.New()
	out := io.MultiWriter(z, h)
	var n [binary.MaxVarintLen64]byte
	if _, err := out.Write(n[:binary.PutUvarint(n[:], f.Cycle)]); err != nil {
		return err
	}
	for _, part := range [][]byte{f.Meta, f.Board, f.Run} {
		if _, err := out.Write(n[:binary.PutUvarint(n[:], uint64(len(part)))]); err != nil {
			return err
		}
		if _, err := out.Write(part); err != nil {
			return err
		}
	}
	if len(f.Sections) > 0 {
		if _, err := out.Write(n[:binary.PutUvarint(n[:], uint64(len(f.Sections)))]); err != nil {
			return err
		}
		for _, s := range f.Sections {
			for _, part := range [][]byte{[]byte(s.Kind), s.Data} {
				if _, err := out.Write(n[:binary.PutUvarint(n[:], uint64(len(part)))]); err != nil {
					return err
				}
				if _, err := out.Write(part); err != nil {
					return err
				}
			}
		}
	}
	if _, err := z.Write(h.Sum(nil)); err != nil {
		return err
	}
	return z.Close()
}

// Decode reads a checkpoint written by Encode. A file cut short and a file with bytes after
// its end are refused, each saying which it is.
func Decode(r io.Reader) (*File, error) {
	br := bufio.NewReader(r)
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(br, head); err != nil || string(head) != magic {
		return nil, fmt.Errorf("checkpoint: %w (bad magic)", ErrFormat)
	}
	z, err := gzip.NewReader(br)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("checkpoint: %w (truncated: the file ends after its first line)", ErrFormat)
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w: %v", ErrFormat, err)
	}
	z.Multistream(false) // one gzip stream: whatever follows it is not the checkpoint's
	body, err := io.ReadAll(z)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("checkpoint: %w (truncated: the file ends inside its compressed data, after %d bytes of it)", ErrFormat, len(body))
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w: %v", ErrFormat, err)
	}
	if extra, _ := io.Copy(io.Discard, br); extra > 0 {
		return nil, fmt.Errorf("checkpoint: %w (%d bytes after the end of the checkpoint)", ErrFormat, extra)
	}
	if len(body) < sha256.Size {
		return nil, fmt.Errorf("checkpoint: %w (truncated)", ErrFormat)
	}
	body, sum := body[:len(body)-sha256.Size], body[len(body)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, fmt.Errorf("checkpoint: %w (checksum mismatch)", ErrFormat)
	}
	f := &File{}
	cycle, n := binary.Uvarint(body)
	if n <= 0 {
		return nil, fmt.Errorf("checkpoint: %w (no cycle)", ErrFormat)
	}
	f.Cycle, body = cycle, body[n:]
	for _, part := range []*[]byte{(*[]byte)(&f.Meta), &f.Board, &f.Run} {
		size, n := binary.Uvarint(body)
		if n <= 0 || uint64(len(body)-n) < size {
			return nil, fmt.Errorf("checkpoint: %w (truncated part)", ErrFormat)
		}
		*part, body = body[n:n+int(size)], body[n+int(size):]
	}
	if len(body) > 0 {
		count, n := binary.Uvarint(body)
		if n <= 0 || count == 0 || count > uint64(len(body)) {
			return nil, fmt.Errorf("checkpoint: %w (%d bytes after the run state that are no sections)", ErrFormat, len(body))
		}
		body = body[n:]
		for i := uint64(0); i < count; i++ {
			var kind, data []byte
			for _, part := range []*[]byte{&kind, &data} {
				size, n := binary.Uvarint(body)
				if n <= 0 || uint64(len(body)-n) < size {
					return nil, fmt.Errorf("checkpoint: %w (truncated section %d)", ErrFormat, i)
				}
				*part, body = body[n:n+int(size)], body[n+int(size):]
			}
			f.Sections = append(f.Sections, Section{Kind: string(kind), Data: data})
		}
		if err := checkSections(f.Sections); err != nil {
			return nil, fmt.Errorf("checkpoint: %w (%v)", ErrFormat, err)
		}
	}
	if len(body) != 0 {
		return nil, fmt.Errorf("checkpoint: %w (%d bytes left over)", ErrFormat, len(body))
	}
	return f, nil
}

// Write saves f to path atomically: a crash while writing leaves any older file whole. The
// file is written as path+".tmp" and renamed into place; a ".tmp" left by a process killed
// while saving is overwritten by the next save.
func (f *File) Write(path string) error {
	tmp := path + ".tmp"
	fh, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("checkpoint: cannot write %s: %w", path, pathless(err))
	}
	fail := func(err error) error {
		fh.Close()
		os.Remove(tmp)
		return fmt.Errorf("checkpoint: writing %s: %w", path, pathless(err))
	}
	w := bufio.NewWriterSize(fh, 1<<20)
	if err := f.Encode(w); err != nil {
		return fail(err)
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	if err := fh.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("checkpoint: writing %s: %w", path, pathless(err))
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("checkpoint: cannot write %s: %w", path, pathless(err))
	}
	return nil
}

// CanWrite reports whether Write can save to path (its folder takes the temporary file, and
// path is not a folder), before a run spends its time; it clears a ".tmp" left by a killed
// process.
func CanWrite(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("checkpoint: cannot write %s: it is a folder", path)
	}
	tmp := path + ".tmp"
	fh, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("checkpoint: cannot write %s: %w", path, pathless(err))
	}
	fh.Close()
	return os.Remove(tmp)
}

// pathless is err without the temporary file's name, which says nothing to the user.
func pathless(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// Read loads a checkpoint file.
func Read(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer fh.Close()
	f, err := Decode(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}
