package goal

// The GOAL grammar as LogGOPSim's txt2bin reads it (src/LogGOPSim/txt2bin.re at commit
// 76451de). Each function below is one or more of its re2c states (s_0 ... s_24), so the
// same text is accepted: keywords need no space after them ("tag5", "8b", "l1:send"), but a
// word at the start of an item is a keyword only when it is exactly one (re2c's longest
// match: "rank5" is a label). Beyond txt2bin (docs/goal.md): rank blocks in any order, a
// dependency may name a label written later in its rank block, comments wherever a space may
// be, and checks txt2bin leaves to the simulator (peers that exist, numbers that fit, labels
// defined once, no dependency cycle).

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// SyntaxError is one bad spot in a schedule: its line and column (both from 1).
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("goal: line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// Limits bound what Parse accepts before it allocates.
type Limits struct {
	// MaxBytes is the memory a schedule may take (MemoryEstimate); 0: no bound.
	MaxBytes uint64
}

// Bytes each operation, dependency and rank take in memory, parsed and while it runs (Op, an
// edge in After and its offsets, the run's per-operation state, a rank's queues and clocks).
// MemoryEstimate uses them; BenchmarkParseRun's allocations check them.
const (
	bytesPerOp   = 32 + 8 + 4 + 8
	bytesPerDep  = 4
	bytesPerRank = 96 + 160
)

// MemoryEstimate is about how much memory a schedule of these sizes takes to parse and run.
func MemoryEstimate(ranks, ops, deps uint64) uint64 {
	return ranks*bytesPerRank + ops*bytesPerOp + deps*bytesPerDep
}

// ErrTooLarge is wrapped by the error of a schedule that would not fit in Limits.MaxBytes.
var ErrTooLarge = fmt.Errorf("schedule too large for memory")

// Parse reads a whole schedule.
func Parse(r io.Reader) (*Schedule, error) { return ParseLimits(r, Limits{}) }

// ParseLimits reads a whole schedule and refuses one whose memory estimate is over lim.
func ParseLimits(r io.Reader, lim Limits) (*Schedule, error) {
	var src []byte
	var err error
	if f, ok := r.(*os.File); ok { // one read of the file's size, not ReadAll's doublings
		var st os.FileInfo
		if st, err = f.Stat(); err == nil && st.Mode().IsRegular() {
			src = make([]byte, 0, st.Size()+1)
		}
	}
	if err == nil {
		src, err = readAll(r, src)
	}
	if err != nil {
		return nil, fmt.Errorf("goal: %w", err)
	}
	if lim.MaxBytes > 0 {
		// Every line holds at most one operation or dependency: a bound before anything is
		// allocated.
		lines := uint64(strings.Count(string(src), "\n")) + 1
		if est := MemoryEstimate(0, lines, 0); est > lim.MaxBytes {
			return nil, fmt.Errorf("goal: %w: %d lines, up to %s to parse and run, over the %s available", ErrTooLarge, lines, human(est), human(lim.MaxBytes))
		}
	}
	p := &parser{src: src, line: 1, lineStart: 0, rank: -1, lim: lim}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return p.s, nil
}

func readAll(r io.Reader, b []byte) ([]byte, error) {
	if cap(b) == 0 {
		return io.ReadAll(r)
	}
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

func human(b uint64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", (b+1023)/1024)
}

type edge struct {
	from, to uint32
	start    bool // irequires
}

type pendingDep struct {
	a, b      string
	start     bool
	line, col int
}

type parser struct {
	src       []byte
	pos       int
	line      int
	lineStart int // offset of the current line's first byte
	lim       Limits
	numCol    int // where the last number began

	s    *Schedule
	seen []bool // rank blocks given

	rank     int // the open rank block, -1: none
	ops      []Op
	labels   map[string]uint32 // labels but Schedgen's l<N>
	lnum     []uint32          // l<N>: lnum[N] is its op + 1 (0: not defined)
	lnumUsed []uint32          // the N set in lnum, to clear it at the next rank
	edges    []edge
	pending  []pendingDep
	rankLine int
}

func (p *parser) errAt(line, col int, format string, a ...any) error {
	return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf(format, a...)}
}

// fail reports a problem at the current position.
func (p *parser) fail(format string, a ...any) error {
	return p.errAt(p.line, p.pos-p.lineStart+1, format, a...)
}

func (p *parser) eof() bool { return p.pos >= len(p.src) }

func (p *parser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *parser) has(s string) bool {
	return len(p.src)-p.pos >= len(s) && string(p.src[p.pos:p.pos+len(s)]) == s
}

// found describes what stands at the current position, for an error.
func (p *parser) found() string {
	switch {
	case p.eof():
		return "the end of the file"
	case p.peek() == '\n' || p.has("\r\n"):
		return "the end of the line"
	}
	end := p.pos
	for end < len(p.src) && end-p.pos < 20 && p.src[end] != '\n' && p.src[end] != ' ' && p.src[end] != '\t' && p.src[end] != '\r' {
		end++
	}
	if end == p.pos {
		end++
	}
	return fmt.Sprintf("%q", string(p.src[p.pos:end]))
}

func (p *parser) expected(what string) error {
	return p.fail("expected %s, found %s", what, p.found())
}

// space skips blanks and comments (not the end of a line). A // comment runs to the end of
// its line; a /* */ comment may span lines.
func (p *parser) space() error {
	for !p.eof() {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t':
			p.pos++
		case p.has("//"):
			for !p.eof() && p.src[p.pos] != '\n' && !p.has("\r\n") {
				p.pos++
			}
		case p.has("/*"):
			line, col := p.line, p.pos-p.lineStart+1
			p.pos += 2
			for !p.has("*/") {
				if p.eof() {
					return p.errAt(line, col, "a /* comment that is never closed with */")
				}
				p.newline()
			}
			p.pos += 2
		default:
			return nil
		}
	}
	return nil
}

// newline steps over one byte, counting lines.
func (p *parser) newline() {
	if p.src[p.pos] == '\n' {
		p.line++
		p.lineStart = p.pos + 1
	}
	p.pos++
}

// endOfLine ends an item: NL is "\r"? "\n" in txt2bin, and the end of the file counts (txt2bin
// appends a newline).
func (p *parser) endOfLine() error {
	if err := p.space(); err != nil {
		return err
	}
	switch {
	case p.eof():
		return nil
	case p.peek() == '\n':
		p.newline()
		return nil
	case p.has("\r\n"):
		p.pos++
		p.newline()
		return nil
	}
	return p.expected("the end of the line")
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// ident reads [a-zA-Z][a-zA-Z0-9_]* (a view of the text: no copy).
func (p *parser) ident() []byte {
	start := p.pos
	if p.eof() || !isLetter(p.src[p.pos]) {
		return nil
	}
	for p.pos < len(p.src) && (isLetter(p.src[p.pos]) || isDigit(p.src[p.pos]) || p.src[p.pos] == '_') {
		p.pos++
	}
	return p.src[start:p.pos]
}

// keyword steps over kw if the text goes on with it (re2c's match of a fixed string).
func (p *parser) keyword(kw string) bool {
	if p.has(kw) {
		p.pos += len(kw)
		return true
	}
	return false
}

// number reads [0-9]+ up to max; wild accepts "-1" and returns Any.
func (p *parser) number(what string, max uint64, wild bool) (uint64, error) {
	if err := p.space(); err != nil {
		return 0, err
	}
	p.numCol = p.pos - p.lineStart + 1
	if wild && p.has("-1") && !(len(p.src) > p.pos+2 && isDigit(p.src[p.pos+2])) {
		p.pos += 2
		return uint64(Any), nil
	}
	if p.eof() || !isDigit(p.peek()) {
		if wild {
			return 0, p.expected(what + " (a whole number, or -1 for any)")
		}
		return 0, p.expected(what + " (a whole number)")
	}
	line, col := p.line, p.pos-p.lineStart+1
	p.numCol = col
	var v uint64
	over := false
	for !p.eof() && isDigit(p.peek()) {
		d := uint64(p.peek() - '0')
		if v > (math.MaxUint64-d)/10 {
			over = true
		} else {
			v = v*10 + d
		}
		p.pos++
	}
	if over || v > max {
		return 0, p.errAt(line, col, "%s %s is too large (at most %d)", what, string(p.src[p.lineStart+col-1:p.pos]), max)
	}
	return v, nil
}

func (p *parser) parse() error {
	for {
		if err := p.space(); err != nil {
			return err
		}
		if p.eof() {
			break
		}
		line, col := p.line, p.pos-p.lineStart+1
		switch c := p.peek(); {
		case c == '\n':
			p.newline()
		case p.has("\r\n"):
			p.pos++
			p.newline()
		case c == '}':
			if p.rank < 0 {
				return p.fail("a } outside a rank block")
			}
			p.pos++
			if err := p.closeRank(); err != nil {
				return err
			}
		case isLetter(c):
			word := p.ident()
			var err error
			switch string(word) {
			case "num_ranks":
				err = p.numRanks(line, col)
			case "rank":
				err = p.openRank(line, col)
			case "send", "recv", "calc":
				err = p.op(string(word), nil, line, col)
			default:
				err = p.labelled(word, line, col)
			}
			if err != nil {
				return err
			}
		default:
			return p.expected(`"num_ranks", "rank", "send", "recv", "calc", a label, "}" or the end of the line`)
		}
	}
	if p.s == nil {
		return p.fail("no num_ranks line")
	}
	if p.rank >= 0 {
		return p.errAt(p.rankLine, 1, "rank %d's block is never closed with }", p.rank)
	}
	return nil
}

// maxRanks keeps rank numbers in LogGOPSim's uint32 with Any (~0) free.
const maxRanks = 1 << 31

func (p *parser) numRanks(line, col int) error {
	if p.s != nil {
		return p.errAt(line, col, "num_ranks is given twice")
	}
	n, err := p.number("the number of ranks", maxRanks, false)
	if err != nil {
		return err
	}
	if n < 1 {
		return p.errAt(line, col, "num_ranks 0: want at least one rank")
	}
	if p.lim.MaxBytes > 0 {
		if est := MemoryEstimate(n, 0, 0); est > p.lim.MaxBytes {
			return fmt.Errorf("goal: %w: %d ranks take %s, over the %s available", ErrTooLarge, n, human(est), human(p.lim.MaxBytes))
		}
	}
	p.s = &Schedule{Ranks: make([]Rank, n)}
	p.seen = make([]bool, n)
	return nil
}

func (p *parser) openRank(line, col int) error {
	if p.s == nil {
		return p.errAt(line, col, "a rank block before num_ranks")
	}
	if p.rank >= 0 {
		return p.errAt(line, col, "a rank block inside rank %d's: a } is missing", p.rank)
	}
	r, err := p.number("the rank", math.MaxUint32, false)
	if err != nil {
		return err
	}
	if r >= uint64(len(p.s.Ranks)) {
		return p.errAt(p.line, p.numCol, "rank %d: num_ranks is %d, so ranks are 0 to %d", r, len(p.s.Ranks), len(p.s.Ranks)-1)
	}
	if err := p.space(); err != nil {
		return err
	}
	if !p.keyword("{") {
		return p.expected(`"{"`)
	}
	if p.seen[r] {
		return p.errAt(line, col, "rank %d's block is given twice", r)
	}
	p.seen[r] = true
	p.rank, p.rankLine = int(r), line
	p.ops, p.edges, p.pending = p.ops[:0], p.edges[:0], p.pending[:0]
	clear(p.labels)
	for _, n := range p.lnumUsed {
		p.lnum[n] = 0
	}
	p.lnumUsed = p.lnumUsed[:0]
	return nil
}

// labelled reads what follows a label: ": op" or "requires|irequires label".
func (p *parser) labelled(label []byte, line, col int) error {
	if err := p.space(); err != nil {
		return err
	}
	switch {
	case p.keyword(":"):
		if err := p.space(); err != nil {
			return err
		}
		for _, kw := range []string{"calc", "send", "recv"} {
			if p.keyword(kw) {
				return p.op(kw, label, line, col)
			}
		}
		return p.expected(`"send", "recv" or "calc"`)
	case p.keyword("requires"):
		return p.dependency(label, false, line, col)
	case p.keyword("irequires"):
		return p.dependency(label, true, line, col)
	}
	return p.expected(`":", "requires" or "irequires"`)
}

func (p *parser) dependency(a []byte, start bool, line, col int) error {
	if err := p.space(); err != nil {
		return err
	}
	b := p.ident()
	if b == nil {
		return p.expected("a label")
	}
	if err := p.endOfLine(); err != nil {
		return err
	}
	if p.rank < 0 {
		return p.errAt(line, col, "a dependency outside a rank block")
	}
	ia, okA := p.label(a)
	ib, okB := p.label(b)
	if okA && okB {
		p.edges = append(p.edges, edge{from: ib, to: ia, start: start})
		return nil
	}
	p.pending = append(p.pending, pendingDep{a: string(a), b: string(b), start: start, line: line, col: col})
	return nil
}

// maxSize keeps sizes and calc times well inside the simulated time (ps in an int64).
const maxSize = 1 << 62

func (p *parser) op(kind string, label []byte, line, col int) error {
	if p.rank < 0 {
		return p.errAt(line, col, "an operation outside a rank block")
	}
	op := Op{Line: uint32(line)}
	n := len(p.s.Ranks)
	if kind == "calc" {
		op.Kind = Calc
		v, err := p.number("the calc time", maxSize, false)
		if err != nil {
			return err
		}
		op.Size = v
		if err := p.space(); err != nil {
			return err
		}
		if p.keyword("cpu") {
			c, err := p.number("the cpu", math.MaxUint8, false)
			if err != nil {
				return err
			}
			op.CPU = uint8(c)
		}
	} else {
		op.Kind = Send
		word, what := "to", "the destination rank"
		if kind == "recv" {
			op.Kind, word, what = Recv, "from", "the source rank"
		}
		v, err := p.number("the size", maxSize, false)
		if err != nil {
			return err
		}
		op.Size = v
		if err := p.space(); err != nil {
			return err
		}
		if !p.keyword("b") {
			return p.expected(`"b" after the size`)
		}
		if err := p.space(); err != nil {
			return err
		}
		if !p.keyword(word) {
			return p.expected(fmt.Sprintf("%q", word))
		}
		peer, err := p.number(what, math.MaxUint32, op.Kind == Recv)
		if err != nil {
			return err
		}
		if peer != uint64(Any) && peer >= uint64(n) {
			return p.errAt(p.line, p.numCol, "rank %d: num_ranks is %d, so ranks are 0 to %d", peer, n, n-1)
		}
		op.Peer = uint32(peer)
		if err := p.space(); err != nil {
			return err
		}
		if p.keyword("tag") {
			// 4294967295 is ~0, LogGOPSim's ANY_TAG: txt2bin reads it as any tag, as -1
			// (Schedgen writes it so: MPI_ANY_TAG through its uint32 tag).
			t, err := p.number("the tag", math.MaxUint32, true)
			if err != nil {
				return err
			}
			op.Tag = uint32(t)
			if err := p.space(); err != nil {
				return err
			}
		}
		if p.keyword("cpu") {
			c, err := p.number("the cpu", math.MaxUint8, false)
			if err != nil {
				return err
			}
			op.CPU = uint8(c)
			if err := p.space(); err != nil {
				return err
			}
		}
		if p.keyword("nic") {
			c, err := p.number("the nic", math.MaxUint8, false)
			if err != nil {
				return err
			}
			op.NIC = uint8(c)
		}
	}
	if err := p.endOfLine(); err != nil {
		return err
	}
	if label != nil {
		if _, dup := p.label(label); dup {
			return p.errAt(line, col, "label %s is defined twice in rank %d", label, p.rank)
		}
		p.define(label, uint32(len(p.ops)))
	}
	p.s.MaxCPU = max(p.s.MaxCPU, op.CPU)
	p.s.MaxNIC = max(p.s.MaxNIC, op.NIC)
	p.ops = append(p.ops, op)
	return nil
}
