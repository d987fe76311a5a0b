package area

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestDesignFiles: each design of the sweep reads its own module tree and no other file, so
// that an edit to one design leaves the others' synthesis as it was.
func TestDesignFiles(t *testing.T) {
	root, err := FindRoot(".")
	require.NoError(t, err)
	for top, want := range map[string][]string{
		TopALPU:   {"rtl/alpu.v", "rtl/alpu_cell.v"},
		TopLHS:    {"rtl/lhs_ram_sdp.v", "rtl/lhs_regs.vh", "rtl/lhs_rx.v"},
		TopVector: {"rtl/lhs_ram_sdp.v", "rtl/lhs_regs.vh", "rtl/lhs_vector_engine.v"},
		TopTop:    {"rtl/lhs_ram_sdp.v", "rtl/lhs_regs.vh", "rtl/lhs_rx.v", "rtl/lhs_top.v", "rtl/lhs_vector_engine.v"},
	} {
		got, err := DesignFiles(root, top)
		require.NoError(t, err)
		require.Equal(t, want, got, top)
	}
}

// TestDesignFilesScan: a module counts as used where the code names it, not in a comment;
// includes count; a top no file defines is an error.
func TestDesignFilesScan(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "rtl"), 0o755))
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "rtl", name), []byte(text), 0o644))
	}
	write("a.v", "module a;\n`include \"h.vh\"\n// b is not used here\n/* nor c */\nd #(.W(1)) u ();\nendmodule\n")
	write("b.v", "module b; endmodule\n")
	write("c.v", "module c; endmodule\n")
	write("d.v", "module d #(parameter W = 1); c u (); endmodule\n")
	write("h.vh", "localparam X = 1;\n")
	got, err := DesignFiles(dir, "a")
	require.NoError(t, err)
	require.Equal(t, []string{"rtl/a.v", "rtl/c.v", "rtl/d.v", "rtl/h.vh"}, got)
	_, err = DesignFiles(dir, "e")
	require.ErrorContains(t, err, "no module e")
}

// TestOnlyWriteKeepsTheRest: lhsim area -write -only re-runs the jobs it names and keeps the
// reports of the rest, so that the summary is still the whole sweep's, in sweep order, with
// the hash of every design's files.
func TestOnlyWriteKeepsTheRest(t *testing.T) {
	root, err := FindRoot(".")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join(root, "synth-reports"))))
	before, err := LoadSummary(dir)
	require.NoError(t, err)
	fams := []Family{XC2VP, XC7}
	o := Options{Dir: root, Reports: dir, Write: true, Families: fams, Only: regexp.MustCompile(`^xc2vp/lhs_rx_ENTRIES64$`),
		RunAll: func(_ context.Context, _ Runner, jobs []Job, _ func(Report, time.Duration)) ([]Report, error) {
			require.Len(t, jobs, 1)
			r, err := LoadReport(dir, jobs[0])
			r.LUTs++ // a report Yosys would give after a change
			return []Report{r}, err
		}}
	var out, log bytes.Buffer
	require.NoError(t, Command(context.Background(), o, &out, &log))
	after, err := LoadSummary(dir)
	require.NoError(t, err)
	require.Len(t, after.Reports, len(Sweep(fams)))
	for i, j := range Sweep(fams) {
		require.Equal(t, j.String(), after.Reports[i].Job.String(), "sweep order")
		want := before.Reports[i]
		if j.String() == "xc2vp/lhs_rx_ENTRIES64" {
			want.LUTs++
		}
		require.Equal(t, want, after.Reports[i], j.String())
	}
	hash, files, err := HashRTL(root, Tops(Sweep(fams))...)
	require.NoError(t, err)
	require.Equal(t, hash, after.RTLHash)
	require.Equal(t, files, after.RTLFiles)
}
