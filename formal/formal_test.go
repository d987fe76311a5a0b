package formal_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lhsim/lhsim/area"
	"github.com/lhsim/lhsim/formal"
	"github.com/lhsim/lhsim/waves"
)

func runner(t *testing.T) formal.Runner {
	t.Helper()
	root, err := area.FindRoot(".")
	require.NoError(t, err)
	r := formal.Runner{Root: root, Dir: t.TempDir(), Timeout: 5 * time.Minute, Parallel: 1}
	require.NoError(t, r.Check(), "make setup installs the formal tools")
	return r
}

// The fast proofs (make test runs them; make formal runs them all): the ring property proven
// for all time on the RTL, and found broken, with a waveform GTKWave opens on the project's
// save file, on the RTL with the ring-resize fix reverted.
func TestFastProofs(t *testing.T) {
	r := runner(t)
	proofs := formal.Select(true, nil)
	require.NotEmpty(t, proofs)
	results := r.RunAll(context.Background(), proofs)
	var b strings.Builder
	require.NoError(t, formal.Table(&b, results))
	t.Log("\n" + b.String())
	require.True(t, formal.Passed(results), "a proof did not end as expected")

	var control, hashControl *formal.Result
	for i := range results {
		if results[i].Proof.Mutation == &formal.RingFix {
			control = &results[i]
		}
		if results[i].Proof.Mutation == &formal.FreshFix {
			hashControl = &results[i]
		}
		if results[i].Proof.Expect == formal.Proven {
			require.Equal(t, formal.Proven, results[i].Outcome, results[i].Proof.Name)
		}
	}
	require.NotNil(t, control, "the fast proofs include the ring-resize control")
	require.Equal(t, "top_tail_in_ring", control.Failed)

	// The hashed matcher whose insert leaves its never-used entry counted free: free + linked
	// above N in its bank, found from reset after the first insert.
	require.NotNil(t, hashControl, "the fast proofs include the hash_match free-count control")
	require.Equal(t, formal.Counterexample, hashControl.Outcome)
	require.Equal(t, "hm_bank_free_linked", hashControl.Failed)
	hv := readVCD(t, hashControl.VCD, hashControl.Step, "hash_match_formal.status_count", "hash_match_formal.status_free")
	require.Greater(t, hv["hash_match_formal.status_count"]+hv["hash_match_formal.status_free"], uint64(4), "free + linked above N at the failing step")

	// The waveform shows the defect: at the failing step the splitter writes outside the
	// ring, which was shrunk below where its write pointer had got to.
	v := readVCD(t, control.VCD, control.Step, "lhs_top.lhs_top.m_mem_valid", "lhs_top.lhs_top.rx_mem_valid",
		"lhs_top.lhs_top.m_mem_addr", "lhs_top.lhs_top.tail_base_reg", "lhs_top.lhs_top.tail_units_reg", "lhs_top.lhs_top.rx.wptr_reg")
	require.EqualValues(t, 1, v["lhs_top.lhs_top.rx_mem_valid"], "a tail write at the failing step")
	lo := v["lhs_top.lhs_top.tail_base_reg"] * 16
	hi := lo + v["lhs_top.lhs_top.tail_units_reg"]*16
	addr := v["lhs_top.lhs_top.m_mem_addr"]
	require.Truef(t, addr < lo || addr >= hi, "address %#x outside the ring [%#x, %#x)", addr, lo, hi)
	require.GreaterOrEqual(t, v["lhs_top.lhs_top.rx.wptr_reg"], v["lhs_top.lhs_top.tail_units_reg"], "TAIL_WPTR past the shrunk ring's end")

	view, err := waves.Open(context.Background(), control.VCD, control.Save, []waves.Probe{
		{Marker: 'A', Signal: waves.Scope + ".m_mem_valid"},
	})
	if errors.Is(err, waves.ErrNoGTKWave) {
		t.Skipf("GTKWave check skipped: %v", err)
	}
	require.NoError(t, err)
	require.Empty(t, view.Missing, "save-file signals GTKWave did not find in the counterexample")
	require.EqualValues(t, control.Step*formal.StepTime, view.Markers['A'], "the marker at the failing step")
	require.Equal(t, "1", view.Values[waves.Probe{Marker: 'A', Signal: waves.Scope + ".m_mem_valid"}])
}

// readVCD returns the values of names at step (yosys-smtbmc's VCD: step k at time 10k).
func readVCD(t *testing.T, path string, step int, names ...string) map[string]uint64 {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	ids := map[string][]string{}
	var scope []string
	vals := map[string]uint64{}
	at := uint64(step * formal.StepTime)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) == 0 {
			continue
		}
		switch {
		case fl[0] == "$scope":
			scope = append(scope, fl[2])
		case fl[0] == "$upscope":
			scope = scope[:len(scope)-1]
		case fl[0] == "$var":
			name := strings.Join(append(append([]string{}, scope...), fl[4]), ".")
			if want[name] {
				ids[fl[3]] = append(ids[fl[3]], name)
			}
		case strings.HasPrefix(fl[0], "#"):
			var tm uint64
			_, err := fmt.Sscan(fl[0][1:], &tm)
			require.NoError(t, err)
			if tm > at {
				require.Len(t, vals, len(names), "values of %v at step %d", names, step)
				return vals
			}
		case strings.HasPrefix(fl[0], "b") && len(fl) == 2:
			n, ok := new(big.Int).SetString(fl[0][1:], 2)
			for _, name := range ids[fl[1]] {
				if ok {
					vals[name] = n.Uint64()
				}
			}
		case len(fl[0]) >= 2 && (fl[0][0] == '0' || fl[0][0] == '1'):
			for _, name := range ids[fl[0][1:]] {
				vals[name] = uint64(fl[0][0] - '0')
			}
		}
	}
	require.Len(t, vals, len(names), "values of %v at step %d", names, step)
	return vals
}

// The rewrite of yosys-smtbmc's VCD: lhs_formal's scope named lhs_top, ranges on buses.
func TestConvert(t *testing.T) {
	in := `$version Generated by Yosys-SMTBMC $end
$timescale 1ns $end
$var integer 32 t smt_step $end
$scope module lhs_formal $end
$var wire 1 n0 clk $end
$scope module lhs_top $end
$var wire 2 n1 state_reg $end
$scope module lhs_formal $end
$upscope $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
b10 n1
$var wire 2 n1 not_a_declaration $end
`
	var out strings.Builder
	require.NoError(t, formal.Convert(strings.NewReader(in), &out))
	require.Equal(t, `$version Generated by Yosys-SMTBMC $end
$timescale 1ns $end
$var integer 32 t smt_step $end
$scope module lhs_top $end
$var wire 1 n0 clk $end
$scope module lhs_top $end
$var wire 2 n1 state_reg [1:0] $end
$scope module lhs_formal $end
$upscope $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
b10 n1
$var wire 2 n1 not_a_declaration $end
`, out.String())

	require.ErrorContains(t, formal.Convert(strings.NewReader("$scope module x $end\n$enddefinitions $end\n"), &out), "no lhs_formal scope")
	require.ErrorContains(t, formal.Convert(strings.NewReader("$scope module lhs_formal $end\n"), &out), "no $enddefinitions")
}

// Each control's mutation finds the code it breaks, once; the runner refuses one that does
// not (the code moved, so the control would prove nothing).
func TestMutation(t *testing.T) {
	root, err := area.FindRoot(".")
	require.NoError(t, err)
	for _, m := range []*formal.Mutation{&formal.RingFix, &formal.FreshFix, &formal.FreeListFix, &formal.OldestFix} {
		b, err := os.ReadFile(filepath.Join(root, m.File))
		require.NoError(t, err)
		require.Equal(t, 1, strings.Count(string(b), m.Old), m.Why)
	}

	r := formal.Runner{Root: root, Dir: t.TempDir()}
	p := formal.Proof{Name: "stale", Method: formal.BMC, Depth: 1, Mutation: &formal.Mutation{File: "rtl/lhs_rx.v", Old: "no such text", Why: "test"}, Expect: formal.Counterexample}
	res := r.Run(context.Background(), p)
	require.Equal(t, formal.Error, res.Outcome)
	require.False(t, res.Pass)
	require.Contains(t, res.Detail, "finds its text 0 times")
}

// Every label a proof names is an assertion or cover statement of its harness's model, so a
// renamed property cannot silently drop out of its proof.
func TestProofLabelsExist(t *testing.T) {
	root, err := area.FindRoot(".")
	require.NoError(t, err)
	source := func(h *formal.Harness) string {
		var src strings.Builder
		for _, f := range h.Sources {
			b, err := os.ReadFile(filepath.Join(root, f))
			require.NoError(t, err)
			src.Write(b)
		}
		return src.String()
	}
	for _, p := range formal.Proofs {
		h := p.Harness
		if h == nil {
			h = &formal.ReceivePath
		}
		src := source(h)
		labels := append(append(append([]string{}, h.Invariants...), p.Asserts...), p.Covers...)
		for _, l := range labels {
			if l == "*" {
				continue
			}
			require.Truef(t, strings.Contains(src, l+": assert") || strings.Contains(src, l+": cover"), "%s is no assertion or cover statement of %v", l, h.Sources)
		}
	}
}
