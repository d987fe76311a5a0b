package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// lhsim ib: help on stdout with status 0; a mistake exits 2 with one line naming it and the
// subcommand's usage, before any work starts.
func TestIBCommandLine(t *testing.T) {
	for _, args := range [][]string{{"ib", "help"}, {"ib", "-h"}, {"ib", "rtt", "-h"}, {"ib", "help", "run"}} {
		code, out, _ := run(t, nil, args...)
		require.Equal(t, 0, code, "lhsim %v", args)
		require.Contains(t, out, "usage: lhsim ib", "lhsim %v", args)
	}
	cases := []struct {
		args []string
		says string
	}{
		{[]string{"ib"}, "lhsim ib needs a subcommand"},
		{[]string{"ib", "pingpong"}, `unknown subcommand "pingpong"`},
		{[]string{"ib", "rtt", "--size", "49"}, "--size 49: want 16 to 48"},
		{[]string{"ib", "rtt", "--iterations", "0"}, "--iterations 0"},
		{[]string{"ib", "bandwidth", "--chipset", "i860"}, `unknown chipset "i860"`},
		{[]string{"ib", "bandwidth", "--sizes", "8"}, "--sizes 8: want 16 to 8192"},
		{[]string{"ib", "bandwidth", "--plot", "x.pdf"}, `--plot: plot file "x.pdf": want .svg or .png`},
		{[]string{"ib", "buffers", "--nodes", "1"}, "--nodes 1: want 2 to 4096"},
		{[]string{"ib", "buffers", "--rates", "0"}, "--rates"},
		{[]string{"ib", "buffers", "--consume", "-1"}, "--consume -1"},
		{[]string{"ib", "cpr", "--qps", "0"}, "--qps 0: want 1 to 65536"},
		{[]string{"ib", "run", "--nodes", "1"}, "--nodes 1: want 2 to 256"},
		{[]string{"ib", "run", "--receive", "ud"}, `receive mode "ud"`},
		{[]string{"ib", "run", "--checkpoint", "x.ckpt"}, "--checkpoint needs --checkpoint-at"},
		{[]string{"ib", "run", "--checkpoint-at", "5", "--checkpoint", "/nonexistent/dir/x.ckpt"}, "--checkpoint: open /nonexistent/dir/x.ckpt: no such file or directory"},
		{[]string{"ib", "run", "--resume", "x.ckpt", "--nodes", "4"}, "leave out --nodes"},
		{[]string{"ib", "run", "--resume", "/nonexistent/x.ckpt"}, "--resume: stat /nonexistent/x.ckpt"},
	}
	for _, c := range cases {
		code, _, stderr := run(t, nil, c.args...)
		require.Equal(t, 2, code, "lhsim %v: %s", c.args, stderr)
		require.Contains(t, stderr, c.says, "lhsim %v", c.args)
		if !pathCase.MatchString(c.says) { // a path that cannot be used: one line
			require.Contains(t, stderr, "usage: lhsim ib", "lhsim %v", c.args)
		}
	}
}

// lhsim ib rtt --json is the JSON; lhsim ib run stops into a checkpoint file and
// --resume ends with the run's digest; lhsim run --resume refuses that file, naming the
// command that takes it.
func TestIBCommands(t *testing.T) {
	code, js, stderr := run(t, nil, "ib", "rtt", "--iterations", "5", "--json")
	require.Equal(t, 0, code, stderr)
	var rtt map[string]map[string]float64
	require.NoError(t, json.Unmarshal([]byte(js), &rtt))
	require.Contains(t, rtt["gc_le"], "dowqe_us")
	require.Contains(t, rtt["e7501"], "no_dowqe_us")

	ckpt := filepath.Join(t.TempDir(), "ib.ckpt")
	args := []string{"ib", "run", "--nodes", "4", "--messages", "15"}
	code, whole, stderr := run(t, nil, append(args, "--json")...)
	require.Equal(t, 0, code, stderr)
	code, _, stderr = run(t, nil, append(args, "--checkpoint-at", "150", "--checkpoint", ckpt)...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "saved "+ckpt)
	code, resumed, stderr := run(t, nil, "ib", "run", "--resume", ckpt, "--json")
	require.Equal(t, 0, code, stderr)
	code, went, stderr := run(t, nil, append(args, "--checkpoint-at", "150", "--json")...)
	require.Equal(t, 0, code, stderr)
	var a, b, c struct {
		Digest string `json:"digest"`
	}
	require.NoError(t, json.Unmarshal([]byte(whole), &a))
	require.NoError(t, json.Unmarshal([]byte(resumed), &b))
	require.NoError(t, json.Unmarshal([]byte(went), &c))
	require.Equal(t, c.Digest, b.Digest, "resumed from the file and gone on in one process")
	require.NotEqual(t, a.Digest, b.Digest, "the checkpoint took simulated time")

	code, _, stderr = run(t, nil, "run", "--resume", ckpt)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "an InfiniBand run's checkpoint: resume it with lhsim ib run --resume")
}
