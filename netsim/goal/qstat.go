package goal

// LogGOPSim's --qstat (src/LogGOPSim/LogGOPSim.cpp at commit 76451de): every search of a
// rank's posted (rq) or unexpected (uq) queue, logged with its depth and time, and written as
// its six files. What it counts, from its match() with LIST_MATCH: a search walks the list from
// the oldest entry and counts every entry it compares, the match included, so a hit at the
// head is depth 1; a miss is logged with the queue's length (all of it compared). rq-max and
// uq-max are the longest queue a search began on. The time is the event's (an arriving
// message once its receiver's CPU and NIC are free, a receive when it starts), in LogGOPSim's
// unit, ns.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// Search is one search of a matching queue as --qstat logs it.
type Search struct {
	At    uint64 // when it ran (ps)
	Depth int32  // a hit: the entries compared, the match included (1: the head); a miss: the queue's length
}

// SearchLog is one rank's searches in the order they ran.
type SearchLog struct {
	PostedHits, UnexpectedHits, PostedMisses, UnexpectedMisses []Search
}

// recorder counts searches into the statistics (Options.Stats) and logs them
// (Options.Searches); a nil slice is not collected.
type recorder struct {
	stats []QueueStats
	log   []SearchLog
}

func newRecorder(P int, opt Options) recorder {
	var r recorder
	if opt.Stats {
		r.stats = make([]QueueStats, P)
	}
	if opt.Searches {
		r.log = make([]SearchLog, P)
	}
	return r
}

// posted records an arriving message's search of rank's posted queue, which had n entries: a
// hit at depth when ok, else a miss.
func (r *recorder) posted(rank, n, depth int, ok bool, at uint64) {
	if r.stats != nil {
		s := &r.stats[rank]
		s.PostedMax = max(s.PostedMax, n)
		if ok {
			bump(&s.PostedHits, depth)
		} else {
			bump(&s.PostedMisses, n)
		}
	}
	if r.log != nil {
		l := &r.log[rank]
		if ok {
			l.PostedHits = append(l.PostedHits, Search{at, int32(depth)})
		} else {
			l.PostedMisses = append(l.PostedMisses, Search{at, int32(n)})
		}
	}
}

// unexpected records a starting receive's search of rank's unexpected queue, as posted.
func (r *recorder) unexpected(rank, n, depth int, ok bool, at uint64) {
	if r.stats != nil {
		s := &r.stats[rank]
		s.UnexpectedMax = max(s.UnexpectedMax, n)
		if ok {
			bump(&s.UnexpectedHits, depth)
		} else {
			bump(&s.UnexpectedMisses, n)
		}
	}
	if r.log != nil {
		l := &r.log[rank]
		if ok {
			l.UnexpectedHits = append(l.UnexpectedHits, Search{at, int32(depth)})
		} else {
			l.UnexpectedMisses = append(l.UnexpectedMisses, Search{at, int32(n)})
		}
	}
}

// QStatFiles are the suffixes of --qstat's six files, in the order LogGOPSim writes them.
var QStatFiles = []string{"rq-max.data", "uq-max.data", "rq-hit.data", "uq-hit.data", "rq-miss.data", "uq-miss.data"}

// QStatPath is prefix's file for suffix, named as LogGOPSim names it ("%s-%s").
func QStatPath(prefix, suffix string) string { return prefix + "-" + suffix }

// WriteQStatFile writes one of the six files (suffix from QStatFiles) for res, which must
// have been run with Options.Stats and Options.Searches: a line per rank; the max files a
// number, the others a "depth,time " pair per search (a space after each, as LogGOPSim's
// stream writes them), the time in ns.
func WriteQStatFile(w io.Writer, suffix string, res *Result) error {
	if len(res.Match) != len(res.Searches) {
		return fmt.Errorf("goal: --qstat needs the run's statistics and searches (%d and %d ranks)", len(res.Match), len(res.Searches))
	}
	bw := bufio.NewWriter(w)
	var b []byte
	for r := range res.Match {
		b = b[:0]
		var list []Search
		switch suffix {
		case "rq-max.data":
			b = strconv.AppendInt(b, int64(res.Match[r].PostedMax), 10)
		case "uq-max.data":
			b = strconv.AppendInt(b, int64(res.Match[r].UnexpectedMax), 10)
		case "rq-hit.data":
			list = res.Searches[r].PostedHits
		case "uq-hit.data":
			list = res.Searches[r].UnexpectedHits
		case "rq-miss.data":
			list = res.Searches[r].PostedMisses
		case "uq-miss.data":
			list = res.Searches[r].UnexpectedMisses
		default:
			return fmt.Errorf("goal: no --qstat file %q", suffix)
		}
		for _, s := range list {
			b = strconv.AppendInt(b, int64(s.Depth), 10)
			b = append(b, ',')
			b = appendNs(b, s.At)
			b = append(b, ' ')
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// appendNs appends ps in ns: an integer as LogGOPSim writes its times when it is whole (always
// under LogGOPSim's integer parameters), else with the fraction's digits (the packet network,
// parameters with fractions of a ns).
func appendNs(b []byte, ps uint64) []byte {
	b = strconv.AppendUint(b, ps/1000, 10)
	if f := ps % 1000; f != 0 {
		d := []byte{'.', byte('0' + f/100), byte('0' + f/10%10), byte('0' + f%10)}
		for d[len(d)-1] == '0' {
			d = d[:len(d)-1]
		}
		b = append(b, d...)
	}
	return b
}

// WriteQStat writes res's six --qstat files under prefix. Each is written to a temporary file
// beside it, and the six are renamed into place only once all are written, so that a failed
// write leaves none of them half-written.
func WriteQStat(prefix string, res *Result) error {
	var tmps []string
	defer func() {
		for _, t := range tmps {
			os.Remove(t)
		}
	}()
	for _, suf := range QStatFiles {
		path := QStatPath(prefix, suf)
		f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
		if err != nil {
			return fmt.Errorf("goal: --qstat: %w", err)
		}
		tmps = append(tmps, f.Name())
		err = WriteQStatFile(f, suf, res)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(f.Name(), 0o644)
		}
		if err != nil {
			return fmt.Errorf("goal: --qstat %s: %w", path, err)
		}
	}
	for i, suf := range QStatFiles {
		if err := os.Rename(tmps[i], QStatPath(prefix, suf)); err != nil {
			return fmt.Errorf("goal: --qstat: %w", err)
		}
	}
	return nil
}
