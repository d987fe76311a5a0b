package goal

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func readSchedule(t *testing.T, file string) *Schedule {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	return parse(t, string(b))
}

func qstatRun(t *testing.T, s *Schedule) *Result {
	t.Helper()
	r, err := RunLogGP(s, DefaultParams(), Options{Stats: true, Searches: true, StdSort: true})
	require.NoError(t, err)
	require.Empty(t, r.Unmatched)
	return r
}

// The six files byte for byte as LogGOPSim wrote them for the schedules in testdata/qstat
// (their README says how: LogGOPSim 76451de, --qstat, default parameters; lhsim runs with
// --stdsort, LogGOPSim's order of operations freed together).
func TestQStatAgainstLogGOPSim(t *testing.T) {
	schedules, err := filepath.Glob("testdata/qstat/*.goal")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(schedules), 5)
	for _, file := range schedules {
		r := qstatRun(t, readSchedule(t, file))
		dir := t.TempDir()
		prefix := filepath.Join(dir, "q")
		require.NoError(t, WriteQStat(prefix, r))
		for _, suf := range QStatFiles {
			want, err := os.ReadFile(QStatPath(strings.TrimSuffix(file, ".goal"), suf))
			require.NoError(t, err)
			got, err := os.ReadFile(QStatPath(prefix, suf))
			require.NoError(t, err)
			require.Equal(t, string(want), string(got), "%s: %s", file, suf)
		}
		left, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Len(t, left, len(QStatFiles), "the six files and no temporary file")
	}
}

// testdata/qstat/hand.goal's searches as its comment works them out: depth counts the entries
// compared with the match included, a miss the whole queue; times from LogGOPSim's rules.
func TestQStatByHand(t *testing.T) {
	r := qstatRun(t, readSchedule(t, "testdata/qstat/hand.goal"))
	depths := func(l []Search) []int32 {
		d := []int32{}
		for _, s := range l {
			d = append(d, s.Depth)
		}
		return d
	}
	l := r.Searches[0]
	require.Equal(t, []int32{3, 2, 1, 1}, depths(l.PostedHits), "rank 1's tags 3, 2, 1, then rank 3's")
	require.Equal(t, []int32{3, 1}, depths(l.PostedMisses), "rank 2's messages meet a, b, d, then d")
	require.Equal(t, []int32{0, 0, 0, 0}, depths(l.UnexpectedMisses), "a to d find nothing unexpected")
	require.Equal(t, []int32{2, 1}, depths(l.UnexpectedHits), "e finds tag 6 behind tag 5; f takes tag 5")
	require.Equal(t, 4, r.Match[0].PostedMax)
	require.Equal(t, 2, r.Match[0].UnexpectedMax)
	// The first message is searched for when it arrives, o + L; the second once the receiver's
	// o and (s-1)G for the first are over.
	require.Equal(t, uint64(4000_000), l.PostedHits[0].At)
	require.Equal(t, uint64(4000_000+1500_000+7*6000), l.PostedMisses[0].At)
	for rank := 1; rank < 5; rank++ {
		require.Equal(t, SearchLog{}, r.Searches[rank], "rank %d receives nothing", rank)
	}
	var b bytes.Buffer
	require.NoError(t, WriteQStatFile(&b, "uq-hit.data", r))
	require.Equal(t, "2,1005542 1,1005542 \n\n\n\n\n", b.String())
}

// The format: a line per rank, a space after every pair, empty lines for ranks with none,
// times in ns with the fraction when there is one (the packet network counts ps).
func TestQStatFormat(t *testing.T) {
	r := &Result{
		Match: []QueueStats{{PostedMax: 7, UnexpectedMax: 0}, {PostedMax: 0, UnexpectedMax: 12}, {}},
		Searches: []SearchLog{
			{PostedHits: []Search{{At: 0, Depth: 1}, {At: 1500, Depth: 7}, {At: 1, Depth: 2}, {At: 123_450_000, Depth: 3}}},
			{},
			{UnexpectedMisses: []Search{{At: 2_000_010, Depth: 0}}},
		},
	}
	for suf, want := range map[string]string{
		"rq-max.data":  "7\n0\n0\n",
		"uq-max.data":  "0\n12\n0\n",
		"rq-hit.data":  "1,0 7,1.5 2,0.001 3,123450 \n\n\n",
		"uq-hit.data":  "\n\n\n",
		"rq-miss.data": "\n\n\n",
		"uq-miss.data": "\n\n0,2000.01 \n",
	} {
		var b bytes.Buffer
		require.NoError(t, WriteQStatFile(&b, suf, r))
		require.Equal(t, want, b.String(), suf)
	}
	var b bytes.Buffer
	require.ErrorContains(t, WriteQStatFile(&b, "rq-avg.data", r), `no --qstat file "rq-avg.data"`)
	require.ErrorContains(t, WriteQStatFile(&b, "rq-hit.data", &Result{Match: r.Match}), "needs the run's statistics and searches")
	require.Equal(t, "p-rq-max.data", QStatPath("p", QStatFiles[0]))
	// A run without Options.Searches logs nothing (and costs nothing).
	s := readSchedule(t, "testdata/qstat/hand.goal")
	plain, err := RunLogGP(s, DefaultParams(), Options{Stats: true})
	require.NoError(t, err)
	require.Nil(t, plain.Searches)
}

// A write that cannot finish leaves no file behind.
func TestQStatWriteFails(t *testing.T) {
	r := qstatRun(t, readSchedule(t, "testdata/qstat/hand.goal"))
	dir := t.TempDir()
	err := WriteQStat(filepath.Join(dir, "missing", "q"), r)
	require.ErrorContains(t, err, "--qstat")
	left, _ := os.ReadDir(dir)
	require.Empty(t, left)
}

// recordingQueue is a ListQueue that remembers the depths its Take reported.
type recordingQueue struct {
	Queue
	depths *[]int32
}

func (q recordingQueue) Take(src, tag uint32) (Entry, int, bool) {
	e, d, ok := q.Queue.Take(src, tag)
	if ok {
		*q.depths = append(*q.depths, int32(d))
	}
	return e, d, ok
}

// On the packet network the files hold the depths the ranks' Queue reported (a matcher's
// queue positions), in the order of the searches, at the times they ran.
func TestQStatPacket(t *testing.T) {
	s := readSchedule(t, "testdata/qstat/hand.goal")
	var reported []int32
	opt := Options{Stats: true, Searches: true, NewQueue: func() Queue { return recordingQueue{NewListQueue(), &reported} }}
	r, err := RunPacket(s, packetCluster(t, "crossbar:8"), 65535, opt)
	require.NoError(t, err)
	require.Empty(t, r.Unmatched)
	var logged []int32
	var last uint64
	for _, l := range r.Searches {
		all := append(append([]Search{}, l.PostedHits...), l.UnexpectedHits...)
		for _, s := range all {
			logged = append(logged, s.Depth)
			require.LessOrEqual(t, s.At, r.End)
		}
	}
	require.ElementsMatch(t, reported, logged)
	require.Len(t, logged, 6, "rank 0's six receives matched once each")
	for _, s := range r.Searches[0].PostedHits {
		require.GreaterOrEqual(t, s.At, last, "the log is in the order of the searches")
		last = s.At
	}
	require.Equal(t, []Search{{At: r.Searches[0].PostedHits[0].At, Depth: 3}}, r.Searches[0].PostedHits[:1], "rank 1's tag 3 meets a, b, c")
	require.NotZero(t, r.Searches[0].PostedHits[0].At%1000, "the packet network's times have fractions of a ns")
	prefix := filepath.Join(t.TempDir(), "p")
	require.NoError(t, WriteQStat(prefix, r))
	b, err := os.ReadFile(QStatPath(prefix, "rq-hit.data"))
	require.NoError(t, err)
	require.Regexp(t, `^(\d+,\d+(\.\d{1,3})? )+\n\n\n\n\n$`, string(b))
}
