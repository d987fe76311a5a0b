// Package fstfile keeps a waveform that a Verilated model writes (GTKWave's FST writer,
// fstapi.c inside Verilator) from ending a run on a full file system.
//
// The FST writer reports no failed write: a file system that fills while it writes leaves a
// truncated file and a run that exits 0, and one that is full when it closes ends the
// process with SIGBUS, which Go cannot catch: at close the writer maps "<file>.hier" (the
// signal names, written beside the waveform) at the length it meant to write, and reads
// past the end of what the file system took. So, around the writer:
//
//   - Check, before it starts, that the file system holds the waveform's close (Reserve)
//     and what the run is expected to write (Estimate); refuse with one line otherwise.
//   - Hold Reserve bytes in a file beside the waveform while it is written (Open), and free
//     them just before the writer closes (Guard.Release): the close always has room for the
//     names, the signal geometry and the last block, so it cannot fault.
//   - After the close, read the file's blocks (Check): a file the file system cut short is
//     an error naming the waveform ("no space left on device"), and is removed, never left
//     as a file GTKWave cannot open.
package fstfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// FST block tags (fstapi.h).
const (
	blockHeader     = 0
	blockVCData     = 1
	blockBlackout   = 2
	blockGeometry   = 3
	blockHier       = 4
	blockVCAlias    = 5
	blockHierLZ4    = 6
	blockHierLZ4Duo = 7
	blockVCAlias2   = 8
	headerBytes     = 330
	// The header's fields after its tag and length: start and end time, the endianness
	// test, the writer's memory, scopes, variables, handles, then the count of value-change
	// blocks (fstWriterEmitHdrBytes).
	headerVCCountAt = 1 + 8 + 8*7
	headerVarsAt    = 1 + 8 + 8*5
)

// The sizes below are measured on the waveforms of rtl/lhs_top.v (605 signals in the
// header's variable count), from lhsim demo --model rtl --trace F (1,294 cycles) and lhsim
// run --model rtl --messages N --trace F (N = 100, 1,000, 5,000: 19,369 to 964,555 cycles);
// TestEstimateCoversRealWaveforms measures them again and fails when they outgrow these:
//
//   - the names: 12,718 bytes in the .hier file beside the waveform, 4,215 as the names
//     block; the geometry: 172 bytes; a block of 256 cycles (the flush interval,
//     verilator.TraceFlushCycles): 17,041 to 30,938 bytes at the largest.
//   - the whole file: 0.063 (the demo) to 0.083 (5,000 messages) bytes per signal and
//     cycle: 49,032 bytes for the demo, 48,236,930 for 5,000 messages.
const (
	// Reserve is what the writer's close needs on the waveform's file system: the names
	// twice (the .hier file, then its block in the waveform), the geometry and the last
	// block, 13 + 5 + 1 + 31 KiB, four times over.
	Reserve = 4 * (13<<10 + 5<<10 + 1<<10 + 31<<10)
	// signalCyclesPerByte is the value changes' rate: the busiest measured, 0.083 bytes per
	// signal and cycle, rounded up to 0.1.
	signalCyclesPerByte = 10
)

// Estimate is the bytes a waveform of signals signals over cycles cycles takes on its file
// system, its close included: Reserve and the value changes at the busiest rate measured.
func Estimate(signals int, cycles uint64) uint64 {
	return Reserve + uint64(signals)*cycles/signalCyclesPerByte
}

// FreeBytes is the space an unprivileged process may still write in the file system that
// holds folder (statfs's available blocks). A variable so that tests can give a figure.
var FreeBytes = func(folder string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(folder, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// ErrNoSpace is wrapped by every error of this package that says the file system is too
// full.
var ErrNoSpace = errors.New("no space left on device")

// CheckSpace refuses a waveform at path when its file system cannot hold need bytes
// (Estimate): the one line names the file, what is free and what is needed. A path whose
// folder does not exist yet is checked at its nearest existing parent.
func CheckSpace(path string, need uint64) error {
	folder := filepath.Dir(path)
	for {
		if _, err := os.Stat(folder); err == nil || filepath.Dir(folder) == folder {
			break
		}
		folder = filepath.Dir(folder)
	}
	free, err := FreeBytes(folder)
	if err != nil {
		return fmt.Errorf("waveform %s: %w", path, err)
	}
	if free < need {
		return fmt.Errorf("waveform %s: %w: %s free on its file system, and the waveform needs about %s (docs/waves.md)",
			path, ErrNoSpace, size(free), size(need))
	}
	return nil
}

// size is a byte count for a message: KiB or MiB, one decimal.
func size(b uint64) string {
	if b >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
}

// ReserveSuffix is the name of the file that holds the reserve, after the waveform's.
const ReserveSuffix = ".reserve"

// Guard holds Reserve bytes beside a waveform while it is written.
type Guard struct {
	path    string // the waveform
	reserve string // the file that holds the reserve, "" once released
}

// Open checks the space for a waveform at path whose writer is about to start (Reserve,
// and the names of a first block) and holds Reserve bytes beside it until Release.
func Open(path string) (*Guard, error) {
	if err := CheckSpace(path, Reserve); err != nil {
		return nil, err
	}
	g := &Guard{path: path, reserve: path + ReserveSuffix}
	f, err := os.OpenFile(g.reserve, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) { // the user's file, never the reserve's name
			err = &os.PathError{Op: pe.Op, Path: path, Err: pe.Err}
		}
		return nil, fmt.Errorf("verilator: trace: %w", err)
	}
	// fallocate takes the blocks now (a sparse file would take none); where the file system
	// cannot, zeros written do.
	err = syscall.Fallocate(int(f.Fd()), 0, 0, Reserve)
	if err != nil && !errors.Is(err, syscall.ENOSPC) {
		_, err = f.Write(make([]byte, Reserve))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(g.reserve)
		if errors.Is(err, syscall.ENOSPC) {
			err = ErrNoSpace
		}
		return nil, fmt.Errorf("waveform %s: %w: the %s its close needs could not be held", path, err, size(Reserve))
	}
	return g, nil
}

// Release frees the reserve: call it just before the writer closes.
func (g *Guard) Release() {
	if g != nil && g.reserve != "" {
		os.Remove(g.reserve)
		g.reserve = ""
	}
}

// Finish releases the reserve if Release was not called, then checks the closed waveform
// (Check); a waveform cut short is removed, and the error names it.
func (g *Guard) Finish() error {
	if g == nil {
		return nil
	}
	g.Release()
	if _, err := Check(g.path); err != nil {
		os.Remove(g.path)
		os.Remove(g.path + ".hier")
		return err
	}
	return nil
}

// Info is what Check read from a whole waveform.
type Info struct {
	Bytes   int64
	Signals int    // the header's variable count
	Blocks  int    // blocks of value changes
	End     uint64 // the header's end time
	// The sizes of its parts, in bytes: the largest block of value changes, the geometry,
	// the names block and the names uncompressed (the .hier file the writer kept beside it).
	MaxBlock, Geometry, NamesBlock, Names int64
}

// Check reads the blocks of the closed FST file at path: a header, blocks that end exactly at
// the end of the file, as many value-change blocks as the header counts, the geometry and
// the names. Anything else is the file system cutting it short (an error wrapping
// ErrNoSpace, naming the file and how much of it there is).
func Check(path string) (Info, error) {
	var in Info
	f, err := os.Open(path)
	if err != nil {
		return in, fmt.Errorf("waveform %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return in, fmt.Errorf("waveform %s: %w", path, err)
	}
	in.Bytes = st.Size()
	short := func(what string) error {
		return fmt.Errorf("waveform %s: %w: the file system filled while it was written (%s); the waveform is removed",
			path, ErrNoSpace, what)
	}
	var hd [headerBytes]byte
	if _, err := io.ReadFull(f, hd[:]); err != nil || hd[0] != blockHeader {
		return in, short("no header")
	}
	in.End = binary.BigEndian.Uint64(hd[17:25])
	in.Signals = int(binary.BigEndian.Uint64(hd[headerVarsAt:]))
	vcBlocks := binary.BigEndian.Uint64(hd[headerVCCountAt:])
	var geometry, names bool
	at := int64(1 + binary.BigEndian.Uint64(hd[1:9]))
	for at < in.Bytes {
		var b [9]byte
		if _, err := f.ReadAt(b[:], at); err != nil {
			return in, short(fmt.Sprintf("a block cut at byte %d", at))
		}
		n := int64(binary.BigEndian.Uint64(b[1:]))
		if n < 8 || at+1+n > in.Bytes {
			return in, short(fmt.Sprintf("a block cut at byte %d", at))
		}
		switch b[0] {
		case blockVCData, blockVCAlias, blockVCAlias2:
			in.Blocks++
			in.MaxBlock = max(in.MaxBlock, 1+n)
		case blockGeometry:
			geometry = true
			in.Geometry = 1 + n
		case blockHier, blockHierLZ4, blockHierLZ4Duo:
			names = true
			in.NamesBlock = 1 + n
			var u [8]byte
			if _, err := f.ReadAt(u[:], at+9); err == nil {
				in.Names = int64(binary.BigEndian.Uint64(u[:]))
			}
		case blockBlackout:
		default:
			return in, short(fmt.Sprintf("block tag %d at byte %d", b[0], at))
		}
		at += 1 + n
	}
	switch {
	case uint64(in.Blocks) != vcBlocks:
		return in, short(fmt.Sprintf("%d of its %d blocks of value changes", in.Blocks, vcBlocks))
	case !geometry || !names:
		return in, short("no signal names or geometry")
	}
	return in, nil
}
