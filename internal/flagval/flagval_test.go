package flagval

import (
	"errors"
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/simtime"
)

// Every number flag checks the text as typed before it converts it; the message says what is
// wrong with it (docs/bad-input.md, the command line's first class).
func TestNumbersAsTyped(t *testing.T) {
	delay, moment, pos := DelayUS, MomentUS, TimeSpec{1_000_000, "µs", 1, 3600_000_000_000_000}
	for _, c := range []struct {
		spec TimeSpec
		in   string
		ok   bool
		says string
	}{
		{delay, "0", true, ""}, {delay, "1.5", true, ""}, {delay, "1e6", true, ""},
		{delay, "1000001", false, "want 0 to 1e+06 µs"}, {delay, "1e12", false, "past an hour"},
		{delay, "NaN", false, "not a finite number"}, {delay, "Inf", false, "not a finite number"},
		{delay, "-Inf", false, "not a finite number"}, {delay, "-1", false, "negative"},
		{delay, "1e30", false, "past an hour"}, {delay, "1e-9", false, "under half a picosecond"},
		{delay, "x", false, "not a number"}, {delay, "1e400", false, "not a finite number"},
		{moment, "3.6e9", true, ""}, {moment, "3.6e9001", false, "not a finite number"}, {moment, "3600000001", false, "past an hour"},
		{pos, "0", false, "want 1e-06 to"}, {pos, "1e-6", true, ""},
	} {
		_, err := c.spec.Parse(c.in)
		if c.ok {
			require.NoError(t, err, c.in)
		} else {
			require.ErrorContains(t, err, c.says, c.in)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var i int
	var u uint64
	var f float64
	Int(fs, &i, "i", 1, 100, "")
	Uint64(fs, &u, "u", 1, 1<<40, "")
	Float(fs, &f, "f", 0, 1, "")
	for _, c := range []struct{ flag, in, says string }{
		{"i", "0", "want 1 to 100"}, {"i", "101", "want 1 to 100"}, {"i", "-1", "want 1 to 100"},
		{"i", "99999999999999999999", "want 1 to 100"}, {"i", "1e30", "not a whole number"}, {"i", "NaN", "not a whole number"},
		{"i", "1.5", "not a whole number"}, {"u", "0", "want 1 to"}, {"u", "-1", "not a whole number"},
		{"u", "99999999999999999999", "want 1 to"}, {"u", "Inf", "not a whole number"},
		{"f", "NaN", "not a finite number"}, {"f", "Inf", "not a finite number"}, {"f", "-Inf", "not a finite number"},
		{"f", "-1", "want 0 to 1"}, {"f", "1e30", "want 0 to 1"}, {"f", "1e999", "not a finite number"},
	} {
		require.ErrorContains(t, fs.Set(c.flag, c.in), c.says, "-%s %s", c.flag, c.in)
	}
	require.NoError(t, fs.Set("i", "100"))
	require.NoError(t, fs.Set("f", "0.5"))
	require.Equal(t, 100, i)
	require.Equal(t, 0.5, f)
}

// A list names the item that is wrong (when it has more than one), keeps its default until a
// good list is given, and takes no empty list.
func TestLists(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var ints []int
	var floats = []float64{0.5}
	var times = []simtime.Time{simtime.Microsecond}
	Ints(fs, &ints, "ints", []int{2, 4}, 1, 8, "")
	Floats(fs, &floats, "floats", 0, 1, "")
	Times(fs, &times, "times", DelayUS, "")
	require.Equal(t, "2,4", fs.Lookup("ints").DefValue)
	require.Equal(t, "0.5", fs.Lookup("floats").DefValue)
	require.Equal(t, "1", fs.Lookup("times").DefValue)
	for _, c := range []struct{ flag, in, says string }{
		{"ints", "9", "want 1 to 8"}, {"ints", "1,9", "9: want 1 to 8"}, {"ints", ",", "want at least one number"},
		{"floats", "0.1,NaN", "NaN: not a finite number"}, {"times", " , ", "want at least one time"},
	} {
		err := fs.Set(c.flag, c.in)
		require.EqualError(t, err, c.says, "-%s %q", c.flag, c.in)
	}
	require.Equal(t, []int{2, 4}, ints, "a refused list leaves the default")
	require.NoError(t, fs.Set("ints", " 1, ,8 "))
	require.NoError(t, fs.Set("times", "0,2.5"))
	require.Equal(t, []int{1, 8}, ints)
	require.Equal(t, []simtime.Time{0, 2500 * simtime.Nanosecond}, times)
}

// A node list is numbers and ranges up to MaxNodes; "all" is nil where the flag takes it.
func TestNodes(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var some, every []int
	Nodes(fs, &some, "some", false, "")
	Nodes(fs, &every, "every", true, "")
	require.Equal(t, "all", fs.Lookup("every").DefValue)
	require.NoError(t, fs.Set("some", "0-2,17"))
	require.Equal(t, []int{0, 1, 2, 17}, some)
	require.NoError(t, fs.Set("every", "3"))
	require.NoError(t, fs.Set("every", "all"))
	require.Nil(t, every)
	require.Error(t, fs.Set("some", "all"), "all is only the default's")
	require.Error(t, fs.Set("some", "0-4194305"))
}

// Explain turns the flag package's error into the flag, the value as typed and why.
func TestExplain(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var n int
	Int(fs, &n, "n", 1, 3, "")
	err := fs.Parse([]string{"--n", " 7"})
	require.EqualError(t, Explain(fs, err), "--n  7: want 1 to 3")
	other := errors.New("flag provided but not defined: -x")
	require.Equal(t, other, Explain(flag.NewFlagSet("u", flag.ContinueOnError), other))
}
