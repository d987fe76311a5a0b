package goal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/netsim/cluster"
	"github.com/lhsim/lhsim/netsim/fabric"
)

func parse(t *testing.T, text string) *Schedule {
	t.Helper()
	s, err := Parse(strings.NewReader(text))
	require.NoError(t, err)
	return s
}

// Everything txt2bin accepts, and the extensions docs/goal.md names.
func TestParseGrammar(t *testing.T) {
	s := parse(t, "num_ranks 4\r\n"+
		"rank 1{\r\n"+ // rank blocks in any order; CRLF; no space before {
		"  l1 :send 8 b to 0 tag 5\n"+ // spaces around the colon and before b
		"l2:recv 0b from -1 tag -1 cpu 1 nic 2\n"+ // 0 bytes, wildcards, cpu and nic
		"calc 100 cpu 3\n"+ // no label
		"send 16b to 1\n"+ // no tag; to itself
		"recv 16b from 1\n"+
		"l2 requires l3\n"+ // a label written later
		"l3: calc 5\n"+
		"l3 irequires l1 /* a comment\n over two lines */\n"+
		"// a line comment\n"+
		"}\n"+
		"rank 0 { l9: recv 8b from 1 tag 5\n"+ // an operation after { on its line
		"}")
	require.Len(t, s.Ranks, 4)
	r1 := s.Ranks[1]
	require.Len(t, r1.Ops, 6)
	require.Equal(t, Op{Kind: Send, Size: 8, Peer: 0, Tag: 5, Line: 3}, r1.Ops[0])
	require.Equal(t, Op{Kind: Recv, Size: 0, Peer: Any, Tag: Any, CPU: 1, NIC: 2, Line: 4, Deps: 1}, r1.Ops[1])
	require.Equal(t, Op{Kind: Calc, Size: 100, CPU: 3, Line: 5}, r1.Ops[2])
	require.Equal(t, Op{Kind: Send, Size: 16, Peer: 1, Line: 6}, r1.Ops[3])
	require.Equal(t, []uint32{1}, r1.Requirers(5), "l2 requires l3")
	require.Equal(t, []uint32{5}, r1.Irequirers(0), "l3 irequires l1")
	require.Empty(t, s.Ranks[2].Ops, "a rank without a block does nothing")
	require.Equal(t, uint8(3), s.MaxCPU)
	require.Equal(t, uint8(2), s.MaxNIC)
	require.Equal(t, 7, s.NumOps)
	// Keywords need no space after them, as in txt2bin's re2c rules; a word that only
	// begins with a keyword is a label.
	s = parse(t, "num_ranks 2\nrank 0 {\nsend1: send 4b to1 tag7\nrank5:calc 3\n}\n")
	require.Equal(t, Op{Kind: Send, Size: 4, Peer: 1, Tag: 7, Line: 3}, s.Ranks[0].Ops[0])
	require.Equal(t, Calc, s.Ranks[0].Ops[1].Kind)
}

// Each malformed input: one error with its line and column.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		text      string
		line, col int
		msg       string
	}{
		{"rank 0 {\n}", 1, 1, "before num_ranks"},
		{"num_ranks 2\nrank 2 {\n}", 2, 6, "ranks are 0 to 1"},
		{"num_ranks 2\nrank 0 {\nl1: send 8 to 1\n}", 3, 12, `expected "b"`},
		{"num_ranks 2\nrank 0 {\nl1: send 8b to 5\n}", 3, 16, "rank 5"},
		{"num_ranks 2\nrank 0 {\nl1: send 8b to -1\n}", 3, 16, "the destination rank"},
		{"num_ranks 2\nrank 0 {\nl1: recv 8b to 1\n}", 3, 13, `expected "from"`},
		{"num_ranks 2\nrank 0 {\nl1: calc 5 nic 1\n}", 3, 12, "end of the line"},
		{"num_ranks 2\nrank 0 {\nl1: send 8b to 1 cpu 256\n}", 3, 22, "too large"},
		{"num_ranks 2\nrank 0 {\nl1: send 99999999999999999999b to 1\n}", 3, 10, "too large"},
		{"num_ranks 2\nrank 0 {\nl1: calc 5\nl1: calc 6\n}", 4, 1, "defined twice"},
		{"num_ranks 2\nrank 0 {\nl1: calc 5\nl1 requires l7\n}", 4, 1, "l7 is not defined"},
		{"num_ranks 2\nrank 0 {\nl1: calc 5\n", 2, 1, "never closed"},
		{"num_ranks 2\nrank 0 {\n/* open\n}", 3, 1, "never closed with */"},
		{"num_ranks 2\n}\n", 2, 1, "outside a rank"},
		{"num_ranks 2\nrank 0 {\n# hash\n}", 3, 1, `found "#"`},
		{"num_ranks 2\nrank 0 {\n}\nrank 0 {\n}", 4, 1, "given twice"},
		{"num_ranks 2\nrank 0 {\nl1: send 8b to 1\r}", 3, 17, "end of the line"},
		{"num_ranks 0\n", 1, 1, "at least one rank"},
	} {
		_, err := Parse(strings.NewReader(c.text))
		var se *SyntaxError
		require.True(t, errors.As(err, &se), "%q: %v", c.text, err)
		require.Equal(t, [2]int{c.line, c.col}, [2]int{se.Line, se.Col}, "%q: %v", c.text, err)
		require.Contains(t, se.Msg, c.msg, c.text)
	}
}

func TestParseCycle(t *testing.T) {
	_, err := Parse(strings.NewReader("num_ranks 1\nrank 0 {\na: calc 1\nb: calc 2\nc: calc 3\nb requires a\nc requires b\nb irequires c\n}\n"))
	require.Error(t, err)
	require.Contains(t, err.Error(), "rank 0: a dependency cycle: ")
	require.Contains(t, err.Error(), "b (line 4)")
	require.Contains(t, err.Error(), "c (line 5)")
	require.NotContains(t, err.Error(), "a (line 3)", "a is not on the cycle")
}

func TestParseTooLarge(t *testing.T) {
	_, err := ParseLimits(strings.NewReader("num_ranks 2000000000\n"), Limits{MaxBytes: 1 << 30})
	require.ErrorIs(t, err, ErrTooLarge)
	require.Contains(t, err.Error(), "GiB")
}

func loggp(t *testing.T, text string, p Params, opt Options) *Result {
	t.Helper()
	r, err := RunLogGP(parse(t, text), p, opt)
	require.NoError(t, err)
	return r
}

// LogGP end times worked out by hand from LogGOPSim.cpp's rules (defaults L=2500, o=1500,
// g=1000, G=6, O=0 ns, S=65535 B).
func TestLogGPByHand(t *testing.T) {
	p := DefaultParams()
	// An eager message: the receiver's o starts when it arrives (o+L), and G is charged for
	// every byte but the first: 2o + L + (s-1)G.
	r := loggp(t, "num_ranks 2\nrank 0 {\nsend 1024b to 1\n}\nrank 1 {\nrecv 1024b from 0\n}\n", p, Options{})
	require.Equal(t, uint64((3000+2500+1023*6)*1000), r.End)
	require.Equal(t, []uint64{1500_000, (3000 + 2500 + 1023*6) * 1000}, r.Finished)
	// Both ranks post a receive, then send, with no dependency: side by side, no hang.
	r = loggp(t, "num_ranks 2\nrank 0 {\nrecv 1b from 1\nsend 1b to 1\n}\nrank 1 {\nrecv 1b from 0\nsend 1b to 0\n}\n", p, Options{})
	require.Equal(t, uint64(5500_000), r.End)
	// A calc holds its CPU; two without a dependency run side by side on two CPUs.
	r = loggp(t, "num_ranks 1\nrank 0 {\na: calc 100\nb: calc 50\nb requires a\n}\n", p, Options{})
	require.Equal(t, uint64(150_000), r.End)
	r = loggp(t, "num_ranks 1\nrank 0 {\na: calc 100\nb: calc 50 cpu 1\n}\n", p, Options{})
	require.Equal(t, uint64(100_000), r.End)
	// LogGOPSim marks a calc done when it starts (MarkNodeAsDone in OP_LOCOP): what requires
	// it starts when its own CPU is free, so on another CPU at once (docs/goal.md).
	r = loggp(t, "num_ranks 1\nrank 0 {\na: calc 100\nb: calc 50 cpu 1\nb requires a\n}\n", p, Options{})
	require.Equal(t, uint64(100_000), r.End)
	// Rendezvous (above S): the send completes when the receiver matches the message
	// (o+L = 4000 ns), so the calc that requires it starts then, not at o = 1500 ns.
	r = loggp(t, "num_ranks 2\nrank 0 {\ns: send 100000b to 1\nc: calc 10\nc requires s\n}\nrank 1 {\nrecv 100000b from 0\n}\n", p, Options{})
	require.Equal(t, uint64(4010_000), r.Finished[0])
	require.Equal(t, uint64((4000+1500+99999*6)*1000), r.Finished[1])
	p.S = 1 << 20 // eager
	r = loggp(t, "num_ranks 2\nrank 0 {\ns: send 100000b to 1\nc: calc 10\nc requires s\n}\nrank 1 {\nrecv 100000b from 0\n}\n", p, Options{})
	require.Equal(t, uint64(1510_000), r.Finished[0])
}

func TestLogGPUnmatched(t *testing.T) {
	r := loggp(t, "num_ranks 3\nrank 0 {\nsend 8b to 1 tag 3\n}\nrank 2 {\nl1: recv 8b from 0\nl2: calc 5\nl2 requires l1\n}\n", DefaultParams(), Options{})
	require.Len(t, r.Unmatched, 2)
	require.Equal(t, "rank 1: a message from 0 tag 3 (its send on line 3) was never received", r.Unmatched[0].String())
	require.Equal(t, "rank 2: recv from 0 tag 0 (line 6) was never matched", r.Unmatched[1].String())
	require.Equal(t, []int{0, 0, 1}, r.NotRun)
}

// Match statistics with --qstat's meaning: three messages from 1 find only the posted
// receive of tag 9 and wait unexpected; the tag-9 message matches it, and the receives it
// frees find the three at depths 3, 1 and 1 (the wildcard last).
func TestLogGPMatchStats(t *testing.T) {
	r := loggp(t, `num_ranks 2
rank 0 {
g: recv 8b from 1 tag 9
a: recv 8b from 1 tag 3
b: recv 8b from 1 tag 1
c: recv 8b from -1 tag -1
a requires g
b requires a
c requires b
}
rank 1 {
send 8b to 0 tag 1
send 8b to 0 tag 2
send 8b to 0 tag 3
w: calc 50000
late: send 8b to 0 tag 9
late requires w
}
`, DefaultParams(), Options{Stats: true})
	q := r.Match[0]
	require.Empty(t, r.Unmatched)
	require.Equal(t, 1, q.PostedMax)
	require.Equal(t, []int{0, 3}, q.PostedMisses, "three searches of a posted queue of one")
	require.Equal(t, []int{0, 1}, q.PostedHits)
	require.Equal(t, 3, q.UnexpectedMax)
	require.Equal(t, []int{1}, q.UnexpectedMisses, "g searched an empty unexpected queue")
	require.Equal(t, []int{0, 2, 0, 1}, q.UnexpectedHits, "depths 3, 1 and 1")
	require.Equal(t, 3, q.MaxDepth())
}

// Exact end times measured with LogGOPSim (commit 76451de, defaults, -b) on Schedgen's
// schedules of the same patterns, which lhsim goal gen writes byte for byte (docs/goal.md).
func TestLogGPAgainstLogGOPSim(t *testing.T) {
	for _, c := range []struct {
		pattern     string
		ranks, size int
		stdsort     bool
		ns          uint64
	}{
		{"binomialtreebcast", 64, 64, false, 35268},
		{"dissemination", 64, 65536, false, 2392260},
		{"allreduce_recdoub", 64, 64, false, 66684},
		{"pipelinedring", 16, 64, false, 175134}, // segment 4: Schedgen --segmentsize 4
		{"linear_alltoall", 64, 64, true, 212814},
		{"gather", 64, 64, false, 122314},
		{"scatter", 64, 64, false, 98878},
		{"binarytreebcast", 64, 64, false, 36890},
	} {
		var b bytes.Buffer
		require.NoError(t, Generate(&b, GenConfig{Pattern: c.pattern, Ranks: c.ranks, Size: c.size, Segment: (c.size + 15) / 16, Seed: 1}))
		r := loggp(t, b.String(), DefaultParams(), Options{StdSort: c.stdsort})
		require.Equal(t, c.ns*1000, r.End, "%s %d ranks %d B", c.pattern, c.ranks, c.size)
	}
}

// LogGOPSim posts more than 16 receives freed together in std::sort's order, not the
// written one, and Schedgen's ring allreduce then deadlocks there (LogGOPSim reports
// non-empty receive queues); lhsim's default order runs it.
func TestStdSortOrder(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Generate(&b, GenConfig{Pattern: "allreduce_ring", Ranks: 16, Size: 64}))
	r := loggp(t, b.String(), DefaultParams(), Options{StdSort: true})
	require.NotEmpty(t, r.Unmatched)
	r = loggp(t, b.String(), DefaultParams(), Options{})
	require.Empty(t, r.Unmatched)
	require.Equal(t, make([]int, 16), r.NotRun)

	// The sort itself: by kind, and a permutation.
	ops := make([]Op, 40)
	a := make([]uint32, 40)
	for i := range ops {
		ops[i].Kind = Kind(3 - i%3)
		a[i] = uint32(i)
	}
	(&typeSorter{}).sort(a, ops)
	seen := map[uint32]bool{}
	for i, x := range a {
		seen[x] = true
		if i > 0 {
			require.LessOrEqual(t, ops[a[i-1]].Kind, ops[x].Kind)
		}
	}
	require.Len(t, seen, 40)
}

// Every pattern: what gen writes parses and runs to the end with nothing unmatched.
func TestGenRoundTrip(t *testing.T) {
	for _, p := range Patterns() {
		for _, n := range []int{2, 7, 16, 33} {
			if p == "allreduce_recdoub" && n&(n-1) != 0 {
				continue
			}
			var b bytes.Buffer
			require.NoError(t, Generate(&b, GenConfig{Pattern: p, Ranks: n, Size: 4096, Segment: 1024, Seed: 3}))
			s := parse(t, b.String())
			r, err := RunLogGP(s, DefaultParams(), Options{})
			require.NoError(t, err)
			require.Empty(t, r.Unmatched, "%s on %d ranks", p, n)
			require.Positive(t, r.End)
		}
	}
	require.Error(t, Generate(&bytes.Buffer{}, GenConfig{Pattern: "nosuch", Ranks: 4, Size: 1}))
	require.Error(t, Generate(&bytes.Buffer{}, GenConfig{Pattern: "allreduce_recdoub", Ranks: 6, Size: 1}))
}

// With LogGOPSim built (TXT2BIN, SCHEDGEN: docs/goal.md), its txt2bin reads what gen writes,
// and gen writes what Schedgen writes for its deterministic patterns.
func TestGenWithPeers(t *testing.T) {
	txt2bin, schedgen := os.Getenv("TXT2BIN"), os.Getenv("SCHEDGEN")
	if txt2bin == "" || schedgen == "" {
		t.Skip("set TXT2BIN and SCHEDGEN to LogGOPSim's txt2bin and Schedgen binaries to check gen against them")
	}
	dir := t.TempDir()
	for _, p := range Patterns() {
		f := filepath.Join(dir, p+".goal")
		var b bytes.Buffer
		require.NoError(t, Generate(&b, GenConfig{Pattern: p, Ranks: 16, Size: 4096, Segment: 1024, Seed: 1}))
		require.NoError(t, os.WriteFile(f, b.Bytes(), 0o644))
		out, err := exec.Command(txt2bin, "-i", f, "-o", f+".bin").CombinedOutput()
		require.NoError(t, err, "txt2bin on %s: %s", p, out)
		switch p {
		case "random_bisect", "linear_alltoallv", "incast", "outcast", "alltoall_late":
			continue // random, Schedgen2's, or lhsim's own
		}
		sg := filepath.Join(dir, p+".sg")
		out, err = exec.Command(schedgen, "-p", p, "-s", "16", "-d", "4096", "--segmentsize", "1024", "-o", sg).CombinedOutput()
		require.NoError(t, err, "%s", out)
		want, err := os.ReadFile(sg)
		require.NoError(t, err)
		require.Equal(t, string(want), b.String(), p)
	}
}

// alltoall_late, from gen through the parser to the packet network: every rank computes
// for the delay before posting its receives, so on every rank all n-1 messages wait in the
// unexpected queue, each receive takes the message from its peer, and no rank ends before
// the delay.
func TestGenAlltoallLate(t *testing.T) {
	const n = 16
	for _, late := range []int64{0, 20_000} {
		var b bytes.Buffer
		require.NoError(t, Generate(&b, GenConfig{Pattern: "alltoall_late", Ranks: n, Size: 8, LateNs: late}))
		want := late
		if want == 0 {
			want = DefaultLateNs
		}
		require.Contains(t, b.String(), fmt.Sprintf("l1: calc %d\nl2: send 8b to 1 tag 0\nl3: recv 8b from 15 tag 0\nl3 requires l1\n", want))
		s := parse(t, b.String())
		require.Equal(t, 2*n*(n-1)+n, s.NumOps)
		r, err := RunPacket(s, packetCluster(t, "crossbar:16"), 65535, Options{Stats: true})
		require.NoError(t, err)
		require.Empty(t, r.Unmatched)
		for i, f := range r.Finished {
			require.Greater(t, f, uint64(want)*1000, "rank %d", i)
			require.Equal(t, n-1, r.Match[i].UnexpectedMax, "rank %d's unexpected queue", i)
		}
	}
	require.Error(t, Generate(&bytes.Buffer{}, GenConfig{Pattern: "alltoall_late", Ranks: 4, Size: 8, LateNs: -1}))
}

func packetCluster(t *testing.T, topo string) *cluster.Cluster {
	t.Helper()
	tp, err := fabric.ParseTopology(topo)
	require.NoError(t, err)
	c, err := cluster.Build(tp, fabric.DefaultConfig(), cluster.DefaultConfig())
	require.NoError(t, err)
	return c
}

// On the packet network: the symmetric exchange that hung when operations ran in the order
// written, a 0-byte message, a message to oneself and a wildcard receive all complete; a
// rendezvous send completes only when matched.
func TestPacket(t *testing.T) {
	s := parse(t, `num_ranks 3
rank 0 {
a: recv 2000b from 1
b: send 2000b to 1
z: send 0b to 2 tag 9
self: send 64b to 0 tag 4
mine: recv 64b from 0 tag 4
}
rank 1 {
recv 2000b from 0
send 2000b to 0
}
rank 2 {
recv 0b from -1 tag -1
}
`)
	r, err := RunPacket(s, packetCluster(t, "crossbar:4"), 65535, Options{Stats: true})
	require.NoError(t, err)
	require.Empty(t, r.Unmatched)
	require.Equal(t, []int{0, 0, 0}, r.NotRun)
	// Each send costs the node latency (1 µs) before its data leaves, so the exchange
	// takes more than that and less than two.
	require.Greater(t, r.Finished[1], uint64(1_000_000))

	rv := `num_ranks 2
rank 0 {
s: send 100000b to 1
c: calc 10
c requires s
}
rank 1 {
w: calc 500000
r: recv 100000b from 0
r requires w
}
`
	r, err = RunPacket(parse(t, rv), packetCluster(t, "crossbar:2"), 65535, Options{})
	require.NoError(t, err)
	require.Equal(t, uint64(500_010_000), r.Finished[0], "the sender's calc starts when the receiver matches at 500 µs")
	r, err = RunPacket(parse(t, rv), packetCluster(t, "crossbar:2"), 1<<20, Options{})
	require.NoError(t, err)
	require.Equal(t, uint64(1_010_000), r.Finished[0], "eager: after the node latency")
}

func FuzzParse(f *testing.F) {
	for _, file := range []string{"testdata/pingpong.goal", "../../docs/goal.md", "../../README.md"} {
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		for _, ex := range examples(string(b)) {
			f.Add(ex)
		}
	}
	f.Add("num_ranks 2\nrank 0 {\nl1: send 8b to 1\n}\nrank 1 {\nl1: recv 8b from -1 tag -1\n}\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseLimits(strings.NewReader(text), Limits{MaxBytes: 64 << 20})
		if err != nil {
			var se *SyntaxError
			if errors.As(err, &se) && (se.Line < 1 || se.Col < 1) {
				t.Fatalf("error without a place: %v", err)
			}
			return
		}
		if len(s.Ranks) > 64 || s.NumOps > 256 {
			return
		}
		p := DefaultParams()
		p.PerByteG = 0 // a 0-byte message with G > o wraps, as in LogGOPSim; keep runs in range
		if _, err := RunLogGP(s, p, Options{Stats: true}); err != nil && !strings.Contains(err.Error(), "refused") {
			t.Fatalf("run: %v", err)
		}
	})
}

// examples are the schedules in a text: a file itself when it starts with num_ranks, else
// each fenced block that holds num_ranks.
func examples(text string) []string {
	if strings.HasPrefix(strings.TrimSpace(text), "num_ranks") || strings.HasPrefix(text, "//") {
		return []string{text}
	}
	var out []string
	parts := strings.Split(text, "```")
	for i := 1; i < len(parts); i += 2 {
		body := parts[i]
		if nl := strings.IndexByte(body, '\n'); nl >= 0 {
			body = body[nl+1:]
		}
		if strings.Contains(body, "num_ranks") {
			out = append(out, body)
		}
	}
	return out
}

// The schedules docs/goal.md and the README show are GOAL that parses and runs.
func TestDocsExamples(t *testing.T) {
	n := 0
	for _, file := range []string{"../../docs/goal.md", "testdata/pingpong.goal"} {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		for _, ex := range examples(string(b)) {
			s := parse(t, ex)
			r, err := RunLogGP(s, DefaultParams(), Options{})
			require.NoError(t, err)
			require.Empty(t, r.Unmatched, file)
			n++
		}
	}
	require.GreaterOrEqual(t, n, 2)
}

// On the packet network a calc is done when it ends (not when it starts, as in LogGOPSim):
// requires waits for it on another CPU too; irequires and separate CPUs run side by side.
func TestPacketCPUs(t *testing.T) {
	for _, c := range []struct {
		text string
		end  uint64
	}{
		{"a: calc 100\nb: calc 50 cpu 1\nb requires a\n", 150_000},
		{"a: calc 100\nb: calc 50 cpu 1\nb irequires a\n", 100_000},
		{"a: calc 100\nb: calc 50 cpu 1\n", 100_000},
		{"a: calc 100\nb: calc 50\n", 150_000},
	} {
		r, err := RunPacket(parse(t, "num_ranks 1\nrank 0 {\n"+c.text+"}\n"), packetCluster(t, "crossbar:2"), 65535, Options{})
		require.NoError(t, err)
		require.Equal(t, c.end, r.End, c.text)
	}
}

// tag 4294967295 (~0, LogGOPSim's ANY_TAG) is any tag, as txt2bin reads it; one more is refused.
func TestParseTagAnyNumber(t *testing.T) {
	s := parse(t, "num_ranks 2\nrank 0 {\nsend 8b to 1 tag 7\n}\nrank 1 {\nrecv 8b from 0 tag 4294967295\n}\n")
	require.Equal(t, Any, s.Ranks[1].Ops[0].Tag)
	r, err := RunLogGP(s, DefaultParams(), Options{})
	require.NoError(t, err)
	require.Empty(t, r.Unmatched, "the any-tag receive takes tag 7")
	_, err = Parse(strings.NewReader("num_ranks 2\nrank 1 {\nrecv 8b from 0 tag 4294967296\n}\n"))
	require.ErrorContains(t, err, "tag")
}
