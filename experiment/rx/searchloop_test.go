package rx

import (
	"encoding/binary"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSearchLoopCounts compiles experiment/rx/searchloop/search_loop.c as the host model's
// loop settings say (gcc -m32, -O0 and -O2), disassembles it with objdump and runs the
// machine code on a small interpreter of the instructions it uses, over queues of 0 to 8
// entries in front of the target whose entries differ from it in the first, second, third
// or fourth field compared. The instructions it executes must be the counts in
// searchloop.go, which the host model charges: the model cannot drift from the compiled loop.
func TestSearchLoopCounts(t *testing.T) {
	for _, loop := range SearchLoops {
		t.Run(loop.Name, func(t *testing.T) {
			prog := compileSearchLoop(t, loop)
			var perMessage [4]int
			for k := 1; k <= 4; k++ {
				counts := make([]int, 9)
				for depth := range counts {
					n, found := runSearchLoop(t, prog, depth, k)
					require.Equal(t, depth, found, "the loop finds the target at depth %d", depth)
					counts[depth] = n
				}
				per := counts[1] - counts[0]
				for d := 1; d < len(counts); d++ {
					require.Equal(t, per, counts[d]-counts[d-1], "every entry costs the same (field %d, depth %d)", k, d)
				}
				perMessage[k-1] = per
				if k == 4 {
					require.Equal(t, loop.PerCall, counts[0], "instructions of a search that finds the target first")
				}
			}
			require.Equal(t, loop.PerMessage, perMessage, "instructions per entry that differs in field 1, 2, 3, 4")
			t.Logf("%s: %d instructions per call, %v per entry (differing in field 1..4)", loop.Name, loop.PerCall, perMessage)
		})
	}
}

// compileSearchLoop compiles and disassembles the loop; it returns the instructions of
// search_queue by address.
func compileSearchLoop(t *testing.T, loop SearchLoop) *x86Prog {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	require.NoError(t, err, "gcc (the cgo compiler) is needed to count the search loop")
	obj := filepath.Join(t.TempDir(), "search_loop.o")
	args := append(append([]string{}, loop.GCCFlags...), "-c", "searchloop/search_loop.c", "-o", obj)
	out, err := exec.Command(gcc, args...).CombinedOutput()
	require.NoError(t, err, "gcc %s\n%s", strings.Join(args, " "), out)
	require.Empty(t, strings.TrimSpace(string(out)), "gcc warnings")
	out, err = exec.Command("objdump", "-d", "--no-show-raw-insn", obj).CombinedOutput()
	require.NoError(t, err, "objdump\n%s", out)
	prog, err := parseObjdump(string(out), "search_queue")
	require.NoError(t, err)
	return prog
}

// Queue entries as search_loop.c lays them out: 64 bytes, rank, tag, comm, datum first.
const (
	loopEntryBytes = 64
	loopQueueBase  = 0x100000
	loopStackTop   = 0x10000
	loopReturn     = 0xdeadbeef
)

// runSearchLoop calls search_queue on a queue of depth+1 entries whose last is the target and
// the others differ from it in field k (1..4) alone. It returns the instructions executed and
// what the function returned.
func runSearchLoop(t *testing.T, prog *x86Prog, depth, k int) (instructions, result int) {
	t.Helper()
	m := newX86(prog)
	target := [4]uint32{3, 7, 11, 42} // rank, tag, comm, datum
	for i := 0; i <= depth; i++ {
		e := target
		if i < depth {
			e[k-1] ^= 0x100
		}
		for f, v := range e {
			m.store(uint32(loopQueueBase+i*loopEntryBytes+4*f), v)
		}
	}
	args := []uint32{loopQueueBase, uint32(depth + 1), target[0], target[1], target[2], target[3]}
	m.reg["esp"] = loopStackTop
	for i := len(args) - 1; i >= 0; i-- {
		m.push(args[i])
	}
	m.push(loopReturn)
	n, err := m.run(loopReturn, 10000)
	require.NoError(t, err)
	return n, int(int32(m.reg["eax"]))
}

// x86Inst is one instruction of objdump's AT&T listing.
type x86Inst struct {
	addr uint64
	op   string
	args []string
}

type x86Prog struct {
	insts map[uint64]x86Inst
	entry uint64
}

var (
	objdumpFunc = regexp.MustCompile(`^[0-9a-f]+ <([^>]+)>:$`)
	objdumpInst = regexp.MustCompile(`^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$`)
)

// parseObjdump reads the instructions of function fn from `objdump -d --no-show-raw-insn`.
func parseObjdump(listing, fn string) (*x86Prog, error) {
	p := &x86Prog{insts: map[uint64]x86Inst{}}
	in := false
	for _, line := range strings.Split(listing, "\n") {
		if m := objdumpFunc.FindStringSubmatch(line); m != nil {
			in = m[1] == fn
			continue
		}
		m := objdumpInst.FindStringSubmatch(line)
		if !in || m == nil {
			continue
		}
		addr, _ := strconv.ParseUint(m[1], 16, 64)
		ops := strings.TrimSpace(m[3])
		if i := strings.Index(ops, " <"); i >= 0 {
			ops = ops[:i] // a jump's target name
		}
		var args []string
		if ops != "" {
			args = splitOperands(ops)
		}
		if len(p.insts) == 0 {
			p.entry = addr
		}
		p.insts[addr] = x86Inst{addr: addr, op: m[2], args: args}
	}
	if len(p.insts) == 0 {
		return nil, fmt.Errorf("no function %s in the listing", fn)
	}
	return p, nil
}

// splitOperands splits at commas outside parentheses.
func splitOperands(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// x86 is an interpreter of the 32-bit instructions gcc makes of the search loop: moves,
// add/sub/shl/xor/lea, cmp/test and the conditional jumps after them, push/pop/leave/ret. Any
// other instruction stops it with an error, so a compiler that makes other code fails the test
// instead of being counted wrong.
type x86 struct {
	prog     *x86Prog
	reg      map[string]uint32
	mem      map[uint32]byte
	cmpA     uint32 // the last cmp or test: flags as of a - b
	cmpB     uint32
	flagsSet bool
}

func newX86(p *x86Prog) *x86 {
	return &x86{prog: p, reg: map[string]uint32{"eiz": 0}, mem: map[uint32]byte{}}
}

func (m *x86) load(a uint32) uint32 {
	var b [4]byte
	for i := range b {
		b[i] = m.mem[a+uint32(i)]
	}
	return binary.LittleEndian.Uint32(b[:])
}

func (m *x86) store(a, v uint32) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	for i := range b {
		m.mem[a+uint32(i)] = b[i]
	}
}

func (m *x86) push(v uint32) { m.reg["esp"] -= 4; m.store(m.reg["esp"], v) }

func (m *x86) pop() uint32 { v := m.load(m.reg["esp"]); m.reg["esp"] += 4; return v }

var memOperand = regexp.MustCompile(`^(-?0x[0-9a-f]+|-?[0-9]+)?\((%\w+)?(?:,(%\w+),([1248]))?\)$`)

// addr is the address of a memory operand.
func (m *x86) addr(op string) (uint32, error) {
	mm := memOperand.FindStringSubmatch(op)
	if mm == nil {
		return 0, fmt.Errorf("operand %q", op)
	}
	var a int64
	if mm[1] != "" {
		d, err := strconv.ParseInt(strings.Replace(mm[1], "0x", "", 1), map[bool]int{true: 16, false: 10}[strings.Contains(mm[1], "0x")], 64)
		if err != nil {
			return 0, err
		}
		a = d
	}
	if mm[2] != "" {
		a += int64(m.reg[mm[2][1:]])
	}
	if mm[3] != "" {
		s, _ := strconv.Atoi(mm[4])
		a += int64(m.reg[mm[3][1:]]) * int64(s)
	}
	return uint32(a), nil
}

func (m *x86) read(op string) (uint32, error) {
	switch {
	case strings.HasPrefix(op, "$"):
		v, err := strconv.ParseUint(strings.TrimPrefix(op, "$0x"), 16, 32)
		return uint32(v), err
	case strings.HasPrefix(op, "%"):
		r := op[1:]
		if _, ok := m.reg[r]; !ok && !strings.HasPrefix(r, "e") {
			return 0, fmt.Errorf("register %s", op)
		}
		return m.reg[r], nil
	default:
		a, err := m.addr(op)
		if err != nil {
			return 0, err
		}
		return m.load(a), nil
	}
}

func (m *x86) write(op string, v uint32) error {
	if strings.HasPrefix(op, "%e") {
		m.reg[op[1:]] = v
		return nil
	}
	a, err := m.addr(op)
	if err != nil {
		return err
	}
	m.store(a, v)
	return nil
}

// run executes from the entry until a ret pops stop; it returns the instructions executed.
func (m *x86) run(stop uint32, limit int) (int, error) {
	pc := m.prog.entry
	for n := 1; n <= limit; n++ {
		in, ok := m.prog.insts[pc]
		if !ok {
			return n, fmt.Errorf("no instruction at %#x", pc)
		}
		next, err := m.step(in)
		if err != nil {
			return n, fmt.Errorf("%#x %s %v: %w", in.addr, in.op, in.args, err)
		}
		if in.op == "ret" && next == uint64(stop) {
			return n, nil
		}
		if next == 0 {
			next = m.nextAddr(pc)
		}
		pc = next
	}
	return limit, fmt.Errorf("no return after %d instructions", limit)
}

func (m *x86) nextAddr(pc uint64) uint64 {
	best := uint64(0)
	for a := range m.prog.insts {
		if a > pc && (best == 0 || a < best) {
			best = a
		}
	}
	return best
}

// step executes one instruction; it returns the address of the next one, 0 for the one after.
func (m *x86) step(in x86Inst) (uint64, error) {
	op := strings.TrimSuffix(in.op, "l") // movl, addl, cmpl, shll: the operand size is 32 bits anyway
	if in.op == "shl" || in.op == "jl" || in.op == "jle" {
		op = in.op
	}
	a := in.args
	two := func() (uint32, uint32, error) {
		if len(a) != 2 {
			return 0, 0, fmt.Errorf("want two operands")
		}
		src, err := m.read(a[0])
		if err != nil {
			return 0, 0, err
		}
		dst, err := m.read(a[1])
		return src, dst, err
	}
	switch op {
	case "mov":
		src, _, err := two()
		if err != nil {
			return 0, err
		}
		return 0, m.write(a[1], src)
	case "add", "sub", "xor", "shl":
		src, dst, err := two()
		if err != nil {
			return 0, err
		}
		m.flagsSet = false
		switch op {
		case "add":
			dst += src
		case "sub":
			dst -= src
		case "xor":
			dst ^= src
		case "shl":
			dst <<= src & 31
		}
		return 0, m.write(a[1], dst)
	case "lea":
		if len(a) != 2 {
			return 0, fmt.Errorf("want two operands")
		}
		v, err := m.addr(a[0])
		if err != nil {
			return 0, err
		}
		return 0, m.write(a[1], v)
	case "cmp":
		src, dst, err := two()
		if err != nil {
			return 0, err
		}
		m.cmpA, m.cmpB, m.flagsSet = dst, src, true
		return 0, nil
	case "test":
		src, dst, err := two()
		if err != nil {
			return 0, err
		}
		m.cmpA, m.cmpB, m.flagsSet = src&dst, 0, true
		return 0, nil
	case "push":
		v, err := m.read(a[0])
		if err != nil {
			return 0, err
		}
		m.push(v)
		return 0, nil
	case "pop":
		return 0, m.write(a[0], m.pop())
	case "leave":
		m.reg["esp"] = m.reg["ebp"]
		m.reg["ebp"] = m.pop()
		return 0, nil
	case "ret":
		return uint64(m.pop()), nil
	case "nop":
		return 0, nil
	case "jmp":
		return strconv.ParseUint(a[0], 16, 64)
	case "je", "jne", "jl", "jle", "jg", "jge":
		if !m.flagsSet {
			return 0, fmt.Errorf("a conditional jump after an instruction other than cmp or test")
		}
		x, y := int32(m.cmpA), int32(m.cmpB)
		taken := map[string]bool{"je": x == y, "jne": x != y, "jl": x < y, "jle": x <= y, "jg": x > y, "jge": x >= y}[op]
		if !taken {
			return 0, nil
		}
		return strconv.ParseUint(a[0], 16, 64)
	}
	return 0, fmt.Errorf("instruction not interpreted")
}
