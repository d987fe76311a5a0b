package area

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// The LHS increment of Table 1 is lhs_rx with LHS = 1 less lhs_rx with LHS = 0, and its
// paper-like row narrows the LH counters (CNT_W). Those variants are only synthesized, never
// run by the simulator, so this test runs them: testdata/lhs_rx_variants_tb.v under Icarus
// drives all three with the same random traffic and requires the narrow counters to change
// nothing but the counters' width, and the base to be the receive path with LHS off, on every
// output and every cycle.
func TestRTLVariantsAgree(t *testing.T) {
	iverilog, err := exec.LookPath("iverilog")
	require.NoError(t, err, "iverilog not installed (make setup installs it)")
	root, err := FindRoot(".")
	require.NoError(t, err)
	vvp := filepath.Join(t.TempDir(), "variants.vvp")
	cmd := exec.Command(iverilog, "-g2005", "-Wall", "-Irtl", "-o", vvp, "-s", "lhs_rx_variants_tb",
		"area/testdata/lhs_rx_variants_tb.v", "rtl/lhs_rx.v", "rtl/lhs_ram_sdp.v")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Empty(t, string(out), "iverilog -Wall warnings")
	cmd = exec.Command("vvp", "-n", vvp)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.NotContains(t, string(out), "MISMATCH")
	m := regexp.MustCompile(`AGREE ((?:\w+=\d+ ?)+)`).FindStringSubmatch(string(out))
	require.NotNil(t, m, "the bench did not finish:\n%s", out)
	got := map[string]int{}
	for _, kv := range regexp.MustCompile(`(\w+)=(\d+)`).FindAllStringSubmatch(m[1], -1) {
		got[kv[1]], _ = strconv.Atoi(kv[2])
	}
	t.Logf("%s", m[0])
	// The run reached what the comparison is about: messages with LHS off (the base),
	// committed entries, tails, refused releases, wrapping rings and wrapping narrow counters.
	for _, k := range []string{"lhs_off_messages", "commits", "mismatches", "too_long", "stalls", "refused",
		"tail_beats_lhs_on", "ring_wraps", "narrow_counter_wraps"} {
		require.Positive(t, got[k], k)
	}
	require.Greater(t, got["messages"], 3000)
}
