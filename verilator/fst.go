package verilator

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/lhsim/lhsim/verilator/fstfile"
)

// A trace left by a process that died is not an FST file yet. The FST writer (GTKWave's
// fstapi.c, inside Verilator) writes the header when it opens the file and a block of value
// changes at each flush; the hierarchy (which signal is which) waits in "<file>.hier" and the
// signal geometry in a deleted temporary file until close, when both go into the file and
// the header gets its times and counts. GTKWave and fst2vcd refuse a file without its
// hierarchy. FinishTrace does what close would have done with what is left: it keeps the
// header and every whole block of value changes, drops the block the process was writing,
// and appends the hierarchy from "<file>.hier". The header keeps its zero times, which the
// FST reader takes for an unfinished file: it reads the times from the value blocks and the
// signal widths from the hierarchy.

// FST block tags (fstapi.h).
const (
	fstBlockHeader     = 0
	fstBlockVCData     = 1
	fstBlockHier       = 4
	fstBlockVCAlias    = 5
	fstBlockVCAlias2   = 8
	fstHeaderBytes     = 330
	fstVCHeaderBytes   = 1 + 8 + 8 + 8 // tag, section length, begin time, end time
	fstTagAndLength    = 1 + 8
	fstHierarchySuffix = ".hier"
)

// FinishedTrace is what FinishTrace made of a trace.
type FinishedTrace struct {
	Finished bool   // the file needed finishing (false: it was closed normally)
	Blocks   int    // blocks of value changes kept
	End      uint64 // the last time they cover, in the dump's unit (ns: CycleTime per cycle)
}

// FinishTrace completes the FST file at path that a process which died while tracing left
// behind (see above), so that GTKWave and fst2vcd open it up to the last flush
// (TraceFlushCycles). A trace that was closed normally has no "<path>.hier" and is left as it
// is. Only the process that wrote the trace is gone: call it after that.
func FinishTrace(path string) (FinishedTrace, error) {
	var r FinishedTrace
	os.Remove(path + fstfile.ReserveSuffix) // the room its close would have had: the finish's now
	hier, err := os.ReadFile(path + fstHierarchySuffix)
	if errors.Is(err, os.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("verilator: finishing trace %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return r, fmt.Errorf("verilator: finishing trace %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return r, err
	}
	size := st.Size()
	var hd [fstVCHeaderBytes]byte
	if _, err := f.ReadAt(hd[:fstTagAndLength], 0); err != nil || hd[0] != fstBlockHeader || size < fstHeaderBytes {
		return r, fmt.Errorf("verilator: finishing trace %s: no FST header (%d bytes)", path, size)
	}
	// Walk the blocks after the header; keep the whole value-change blocks.
	end := int64(fstHeaderBytes)
	for end+fstVCHeaderBytes <= size {
		if _, err := f.ReadAt(hd[:], end); err != nil {
			return r, err
		}
		n := int64(binary.BigEndian.Uint64(hd[1:9]))
		whole := n > 0 && end+1+n <= size
		if tag := hd[0]; !whole || (tag != fstBlockVCData && tag != fstBlockVCAlias && tag != fstBlockVCAlias2) {
			break // the block being written (tagged FST_BL_SKIP until it is done), or a torn one
		}
		r.Blocks++
		r.End = binary.BigEndian.Uint64(hd[17:25])
		end += 1 + n
	}
	// The hierarchy block: tag, section length (counting itself), uncompressed length, gzip.
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed)
	if _, err := zw.Write(hier); err != nil {
		return r, err
	}
	if err := zw.Close(); err != nil {
		return r, err
	}
	block := make([]byte, fstTagAndLength+8, fstTagAndLength+8+z.Len())
	block[0] = fstBlockHier
	binary.BigEndian.PutUint64(block[1:9], uint64(8+8+z.Len()))
	binary.BigEndian.PutUint64(block[9:17], uint64(len(hier)))
	block = append(block, z.Bytes()...)
	if err := f.Truncate(end); err != nil {
		return r, fmt.Errorf("verilator: finishing trace %s: %w", path, err)
	}
	if _, err := f.WriteAt(block, end); err != nil {
		return r, fmt.Errorf("verilator: finishing trace %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return r, fmt.Errorf("verilator: finishing trace %s: %w", path, err)
	}
	r.Finished = true
	return r, os.Remove(path + fstHierarchySuffix)
}
