package formal

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lhsim/lhsim/gosim"
	"github.com/lhsim/lhsim/waves"
)

// Params are the formal model's lhs_top parameters (formal/lhs_formal.v), for the save file.
var Params = gosim.ModelParams{Entries: 4, WinBytes: 64}

// waveform replays a counterexample (res.VCD, from the cone-of-influence model) on the whole
// design, so that every signal of the project's save file is in it, and writes it as
// <dir>/counterexample.vcd with counterexample.gtkw beside it. A replay that fails leaves
// the raw trace, named in res.Detail.
func (r Runner) waveform(ctx context.Context, dir string, files []string, p Proof, res *Result) {
	kind := strings.TrimSuffix(filepath.Base(res.VCD), ".raw.vcd")
	full := filepath.Join(dir, "full.smt2")
	script := Script(files, p, full, false)
	if err := os.WriteFile(filepath.Join(dir, "full.ys"), []byte(script), 0o644); err != nil {
		res.Detail = err.Error()
		return
	}
	ctx2, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	if out, err := command(ctx2, dir, "yosys", "-q", "-l", "full.log", "-s", "full.ys"); err != nil {
		res.Detail = fmt.Sprintf("formal: yosys (whole design for the waveform) failed, raw trace %s: %v\n%s", res.VCD, err, tail(out, 10))
		return
	}
	out, _ := command(ctx2, dir, "yosys-smtbmc", "-s", r.solver(), "--noprogress", "--yw", kind+".yw",
		"-t", strconv.Itoa(res.Step+1), "--dump-vcd", "replay.vcd", "full.smt2")
	_ = os.WriteFile(filepath.Join(dir, "replay.log"), []byte(out), 0o644)
	if ctx2.Err() != nil {
		res.Detail = fmt.Sprintf("formal: the replay on the whole design did not finish within %v; raw trace %s", r.timeout(), res.VCD)
		return
	}
	replayed := parseSmtbmc(out, false)
	if replayed.Outcome != Counterexample || replayed.Step != res.Step {
		res.Detail = fmt.Sprintf("formal: the replay on the whole design did not fail at step %d (%s, step %d); raw trace %s", res.Step, replayed.Outcome, replayed.Step, res.VCD)
		return
	}
	vcd := filepath.Join(dir, "counterexample.vcd")
	if p.harness() != &ReceivePath {
		// no save file of the project names this design's signals: the trace as replayed
		if err := os.Rename(filepath.Join(dir, "replay.vcd"), vcd); err != nil {
			res.Detail = err.Error()
			return
		}
		res.VCD = vcd
		return
	}
	if err := convertFile(filepath.Join(dir, "replay.vcd"), vcd); err != nil {
		res.Detail = err.Error()
		return
	}
	save := filepath.Join(dir, "counterexample.gtkw")
	marker := waves.Marker{Name: res.Failed + " fails", Time: uint64(res.Step) * StepTime}
	if err := waves.ForRun(vcd, Params, []waves.Marker{marker}).Write(save); err != nil {
		res.Detail = err.Error()
		return
	}
	res.VCD, res.Save = vcd, save
}

// StepTime is one yosys-smtbmc step in its VCD's time unit (ns): step k is at 10k, the
// clock's rising edge.
const StepTime = 10

func convertFile(in, out string) error {
	src, err := os.Open(in)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := Convert(src, dst); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// Convert rewrites yosys-smtbmc's VCD with the names the project's save files use (the
// Verilator bridge's): the top scope (lhs_formal) is named lhs_top, so lhs_top's signals are
// lhs_top.lhs_top.<name> as in the bridge's traces, and every bus gets its range
// ("state_reg [1:0]"), which yosys-smtbmc leaves out.
func Convert(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	bw := bufio.NewWriter(w)
	header := true
	top := false
	for sc.Scan() {
		line := sc.Text()
		if header {
			f := strings.Fields(line)
			switch {
			case len(f) == 4 && f[0] == "$scope" && f[1] == "module" && f[2] == Top && !top:
				line = "$scope module lhs_top $end"
				top = true
			case len(f) == 6 && f[0] == "$var" && f[5] == "$end":
				if n, err := strconv.Atoi(f[2]); err == nil && n > 1 && f[1] == "wire" {
					line = fmt.Sprintf("$var %s %s %s %s [%d:0] $end", f[1], f[2], f[3], f[4], n-1)
				}
			case len(f) > 0 && f[0] == "$enddefinitions":
				header = false
				if !top {
					return fmt.Errorf("formal: the trace has no %s scope", Top)
				}
			}
		}
		if _, err := bw.WriteString(line + "\n"); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if header {
		return fmt.Errorf("formal: the trace has no $enddefinitions")
	}
	return bw.Flush()
}
