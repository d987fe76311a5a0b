package formal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Harness is one design's formal model: a top module that instantiates the design at a small
// configuration and constrains its inputs, the Verilog files it reads, and the assertions that
// make its properties inductive (every induction proof on it proves them too).
type Harness struct {
	Name       string
	Top        string
	Sources    []string // relative to the repository root
	Invariants []string
	// Prepare are Yosys commands run on the flattened model before it is written (a small
	// harness's memories as flip-flops: memory_map).
	Prepare string
	// Params set the top's parameters (chparam), so that one harness serves several sizes.
	Params []Param
	// Probes connect the harness's undriven wires to signals inside the design, after
	// Prepare: Yosys 0.23's Verilog frontend has no hierarchical references, and the
	// invariants that tie a design's RAM to the harness's shadow read its words.
	Probes []Probe
}

// Param is one parameter of a harness's top.
type Param struct {
	Name  string
	Value int
}

// Probe drives a harness wire (or a slice of it, "w[7:4]") from a design signal named as
// flatten names it ("inst.sub.reg", a memory word "inst.ram.mem[3]" once memory_map ran).
type Probe struct {
	Wire, Signal string
}

// MemoryProbes are the probes of a memory's words packed into one harness wire, word i at
// bits [(i+1)*width-1 : i*width].
func MemoryProbes(wire, memory string, words, width int) []Probe {
	out := make([]Probe, words)
	for i := range out {
		out[i] = Probe{Wire: fmt.Sprintf("%s[%d:%d]", wire, (i+1)*width-1, i*width), Signal: fmt.Sprintf("%s[%d]", memory, i)}
	}
	return out
}

// ReceivePath is the receive path's harness (formal/lhs_formal.v: lhs_top, 4 LH entries,
// 64-byte windows), the default of a Proof.
var ReceivePath = Harness{Name: "receive path", Top: Top, Sources: Sources, Invariants: Invariants}

// HashMatch is the hashed matcher's harness (formal/hash_match_formal.v: hash_match with 4
// entries, 2 bins, one bank, a one-cycle read, beside a shadow of its entries), with the
// invariants of its counts.
var HashMatch = Harness{Name: "hash_match", Top: "hash_match_formal",
	Sources:    []string{"rtl/lhs_ram_sdp.v", "rtl/hash_match_bank.v", "rtl/hash_match.v", "formal/hash_match_formal.v"},
	Invariants: []string{"hm_inv_state", "hm_bank_inv_wait", "hm_bank_fresh"},
	// Its 4-entry RAMs as flip-flops: cvc5 solves bit vectors much faster than arrays here.
	Prepare: "memory_map\n",
	Probes:  hashProbes(4, 14)}

// HashMatchLists is the same harness with the invariants that tie the bank's RAM and lists
// to the shadow (hm_inv_*): those that make "a search returns the oldest match" inductive.
// The count proofs run without them, in seconds. At 4 entries its inductive step did not
// close within 20 minutes of cvc5; HashMatchLists2 proves it at 2.
var HashMatchLists = Harness{Name: "hash_match lists", Top: HashMatch.Top, Sources: HashMatch.Sources,
	Invariants: append(append([]string{}, HashMatch.Invariants...),
		"hm_inv_lists", "hm_inv_words", "hm_inv_seqs", "hm_inv_free", "hm_inv_top_idle", "hm_inv_top_search",
		"hm_inv_top_rsp", "hm_inv_top_state", "hm_inv_walk", "hm_inv_best", "hm_inv_done", "hm_inv_answer", "hm_inv_pending",
		"hm_ins_slot_free"),
	Prepare: HashMatch.Prepare, Probes: HashMatch.Probes}

// HashMatchLists2 is HashMatchLists at 2 entries (one in a bin and one with a wildcard are
// enough for the bin and the wildcard list to compete): its answers close in seconds.
var HashMatchLists2 = Harness{Name: "hash_match lists, 2 entries", Top: HashMatch.Top, Sources: HashMatch.Sources,
	Invariants: HashMatchLists.Invariants, Prepare: HashMatch.Prepare, Params: []Param{{"ENTRIES", 2}}, Probes: hashProbes(2, 14)}

// hashProbes connect hash_match_formal's p_* wires to the design at its size: entries words
// of entW bits (4 of 14: 3-bit sequence numbers and handles), 2 bins, one bank.
func hashProbes(entries, entW int) []Probe {
	aw := 1
	for 1<<aw < entries {
		aw++
	}
	const bank = "hash_match.g_bank[0].bank_inst."
	probes := []Probe{{"p_top_state", "hash_match.state_reg"}, {"p_seq", "hash_match.seq_reg"}}
	for _, r := range []string{"state", "phase", "wait", "cur", "best", "best_wild", "best_idx", "best_bnext", "best_bprev",
		"best_anext", "best_aprev", "best_seq", "best_handle", "best_bin", "bin_valid", "wild_valid", "arr_valid",
		"wild_head", "wild_tail", "arr_head", "arr_tail", "fresh", "free_cnt", "count", "free_head", "free_pop",
		"key_src", "key_tag", "key_ctx", "key_src_any", "key_tag_any", "key_bin"} {
		probes = append(probes, Probe{"p_" + r, bank + r + "_reg"})
	}
	probes = append(probes, Probe{"p_cur_next", bank + "cur_next"})
	probes = append(probes, MemoryProbes("p_bin_head", bank+"bin_head_mem", 2, aw)...)
	probes = append(probes, MemoryProbes("p_bin_tail", bank+"bin_tail_mem", 2, aw)...)
	probes = append(probes, MemoryProbes("p_ent", bank+"ent_ram.mem", entries, entW)...)
	probes = append(probes, Probe{"p_ent_q", bank + "ent_ram.rd_data"})
	for _, ram := range []string{"bnext", "bprev", "anext", "aprev", "fnext"} {
		probes = append(probes, MemoryProbes("p_"+ram, bank+ram+"_ram.mem", entries, aw)...)
		probes = append(probes, Probe{"p_" + ram + "_q", bank + ram + "_ram.rd_data"})
	}
	return probes
}

// Sources are the Verilog files of the receive path's formal model, relative to the
// repository root; the last is lhs_formal.v, the rest the RTL it instantiates.
var Sources = []string{"rtl/lhs_ram_sdp.v", "rtl/lhs_rx.v", "rtl/lhs_vector_engine.v", "rtl/lhs_top.v", "formal/lhs_formal.v"}

// Top is the receive path's formal top module.
const Top = "lhs_formal"

// harness is the proof's harness (ReceivePath when it names none).
func (p Proof) harness() *Harness {
	if p.Harness != nil {
		return p.Harness
	}
	return &ReceivePath
}

// DefaultSolver is the SMT solver yosys-smtbmc drives. cvc5 (Debian bookworm's 1.0.3) is the
// one of Debian's that works here: z3 4.8.12 does not get past loading this model (its
// rewriter blows up on the splitter's byte-mask muxes), and boolector 1.5 has no incremental
// SMT-LIB 2 mode (docs/formal.md).
const DefaultSolver = "cvc5"

// Runner runs proofs.
type Runner struct {
	Root     string        // repository root
	Dir      string        // work folder: Dir/<proof>/ (Root/build/formal when empty)
	Solver   string        // DefaultSolver when empty
	Timeout  time.Duration // per tool run; DefaultTimeout when 0
	Parallel int           // proofs at once (1 when 0)
	// Log, when set, is called as each proof ends (from the proof's goroutine).
	Log func(Result)
}

// Result is one proof's row.
type Result struct {
	Proof   Proof
	Outcome Outcome
	Step    int      // the failing step of a counterexample, the induction step that failed
	Failed  string   // the assertion that failed
	Reached []string // cover statements reached, "label@step"
	Seconds float64
	Pass    bool   // Outcome is what the proof expects
	VCD     string // counterexample waveform, named as the project's save files expect
	Save    string // GTKWave save file for VCD
	Detail  string // the tool's last lines when it failed or timed out
}

// Check finds the tools before any proof runs.
func (r Runner) Check() error {
	for _, tool := range []string{"yosys", "yosys-smtbmc", r.solver()} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("formal: %s not found: scripts/setup.sh installs it (Debian packages yosys and %s)", tool, r.solver())
		}
	}
	return nil
}

func (r Runner) solver() string {
	if r.Solver == "" {
		return DefaultSolver
	}
	return r.Solver
}

func (r Runner) dir() string {
	d := r.Dir
	if d == "" {
		d = filepath.Join(r.Root, "build", "formal")
	}
	if abs, err := filepath.Abs(d); err == nil {
		return abs
	}
	return d
}

func (r Runner) timeout() time.Duration {
	if r.Timeout <= 0 {
		return DefaultTimeout
	}
	return r.Timeout
}

// RunAll runs proofs, Parallel at a time, and returns their results in the order given.
func (r Runner) RunAll(ctx context.Context, proofs []Proof) []Result {
	out := make([]Result, len(proofs))
	n := r.Parallel
	if n < 1 {
		n = 1
	}
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i, p := range proofs {
		sem <- struct{}{} // in the table's order
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i] = r.Run(ctx, p)
			if r.Log != nil {
				r.Log(out[i])
			}
		}()
	}
	wg.Wait()
	return out
}

// Slug is a proof's folder name under the work folder.
func Slug(name string) string {
	s := strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(s) > 48 {
		s = strings.TrimRight(s[:48], "-")
	}
	return s
}

// Run runs one proof.
func (r Runner) Run(ctx context.Context, p Proof) Result {
	start := time.Now()
	res := r.run(ctx, p)
	res.Proof = p
	res.Seconds = time.Since(start).Seconds()
	// A control passes only when it fails on the property it is about.
	res.Pass = res.Outcome == p.Expect && (p.Expect != Counterexample || slices.Contains(p.Asserts, res.Failed))
	return res
}

func (r Runner) run(ctx context.Context, p Proof) Result {
	dir := filepath.Join(r.dir(), Slug(p.Name))
	if err := os.RemoveAll(dir); err != nil {
		return errResult(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return errResult(err)
	}
	files, err := r.sources(dir, p.harness().Sources, p.Mutation)
	if err != nil {
		return errResult(err)
	}
	model := filepath.Join(dir, "model.smt2")
	if err := r.yosys(ctx, dir, Script(files, p, model, true)); err != nil {
		return errResult(err)
	}
	switch p.Method {
	case Cover:
		return r.smtbmc(ctx, dir, p, "cover", model, "-c", "-t", strconv.Itoa(p.Depth))
	case BMC:
		res := r.smtbmc(ctx, dir, p, "bmc", model, "-t", strconv.Itoa(p.Depth))
		if res.Outcome == Counterexample {
			r.waveform(ctx, dir, files, p, &res)
		}
		return res
	}
	// k-induction: the base case (the first k steps from reset) and the inductive step, at
	// once (two processes).
	var base, step Result
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		base = r.smtbmc(ctx, dir, p, "base", model, "-t", strconv.Itoa(p.Depth))
	}()
	step = r.smtbmc(ctx, dir, p, "step", model, "-i", "-t", strconv.Itoa(p.Depth))
	wg.Wait()
	if base.Outcome != Bounded {
		if base.Outcome == Counterexample {
			r.waveform(ctx, dir, files, p, &base)
		}
		return base
	}
	if step.Outcome == Bounded {
		step.Outcome = Proven
	}
	return step
}

func errResult(err error) Result { return Result{Outcome: Error, Detail: err.Error()} }

// sources copies the model's files into dir when a mutation applies to one of them, and
// returns the paths to read (relative to the repository root, or inside dir).
func (r Runner) sources(dir string, sources []string, m *Mutation) ([]string, error) {
	files := make([]string, len(sources))
	for i, f := range sources {
		files[i] = filepath.Join(r.Root, f)
	}
	if m == nil {
		return files, nil
	}
	for i, f := range sources {
		if f != m.File {
			continue
		}
		b, err := os.ReadFile(files[i])
		if err != nil {
			return nil, err
		}
		if n := strings.Count(string(b), m.Old); n != 1 {
			return nil, fmt.Errorf("formal: the mutation (%s) finds its text %d times in %s, not once: the code it reverts has moved (formal/proofs.go)", m.Why, n, m.File)
		}
		mutated := filepath.Join(dir, "mutated", filepath.Base(f))
		if err := os.MkdirAll(filepath.Dir(mutated), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(mutated, []byte(strings.Replace(string(b), m.Old, m.New, 1)), 0o644); err != nil {
			return nil, err
		}
		files[i] = mutated
		return files, nil
	}
	return nil, fmt.Errorf("formal: mutation of %s, which is not a source of the model", m.File)
}

// keepAsserts are the assertion labels a proof checks: its own and, for induction, the
// invariants.
func keepAsserts(p Proof) []string {
	keep := append([]string{}, p.Asserts...)
	if p.Method == Induction {
		keep = append(keep, p.harness().Invariants...)
	}
	return keep
}

// Script is the Yosys script that writes the SMT-LIB 2 model of a proof: the design
// flattened, the assertions and cover statements the proof is not about removed, and, when
// purge is set, everything outside the cone of what remains (a much smaller problem; the
// waveform of a counterexample is replayed on the whole design).
func Script(files []string, p Proof, model string, purge bool) string {
	var b strings.Builder
	inc := map[string]bool{}
	var incs []string
	for _, f := range files {
		if d := filepath.Dir(f); !inc[d] {
			inc[d] = true
			incs = append(incs, "-I"+d)
		}
	}
	fmt.Fprintf(&b, "read_verilog -formal %s %s\n", strings.Join(incs, " "), strings.Join(files, " "))
	for _, pa := range p.harness().Params {
		fmt.Fprintf(&b, "chparam -set %s %d %s\n", pa.Name, pa.Value, p.harness().Top)
	}
	fmt.Fprintf(&b, "prep -top %s\n", p.harness().Top)
	if !purge {
		// Every signal stays for the waveform, also a port's name inside a block, which
		// flatten makes an alias of the signal outside.
		b.WriteString("setattr -set keep 1 w:*\n")
	}
	b.WriteString("flatten\n")
	b.WriteString(removeOthers("assert", keepAsserts(p)))
	b.WriteString(removeOthers("cover", p.Covers))
	b.WriteString("memory_nordff\n")
	b.WriteString(p.harness().Prepare)
	if probes := p.harness().Probes; len(probes) > 0 {
		fmt.Fprintf(&b, "cd %s\n", p.harness().Top)
		for _, pr := range probes {
			fmt.Fprintf(&b, "connect -set %s %s\n", pr.Wire, pr.Signal)
		}
		b.WriteString("cd ..\n")
	}
	b.WriteString("async2sync\nchformal -assume -early\n")
	if purge {
		b.WriteString("opt_clean -purge\n")
	} else {
		b.WriteString("opt_clean\n")
	}
	b.WriteString("setundef -undriven -anyseq\nopt -fast\ndffunmap\n")
	fmt.Fprintf(&b, "write_smt2 -wires %s\n", model)
	return b.String()
}

// removeOthers is a chformal command that removes every cell of kind whose name is not one of
// labels ("*" keeps all). After flatten a label in a submodule is "<path>.<label>".
func removeOthers(kind string, labels []string) string {
	sel := "t:$" + kind
	for _, l := range labels {
		if l == "*" {
			return ""
		}
		sel += fmt.Sprintf(" n:%s %%d n:*.%s %%d", l, l)
	}
	return fmt.Sprintf("select -clear\nchformal -%s -remove %s\n", kind, sel)
}

// yosys runs a script in dir.
func (r Runner) yosys(ctx context.Context, dir, script string) error {
	ys := filepath.Join(dir, "model.ys")
	if err := os.WriteFile(ys, []byte(script), 0o644); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	out, err := command(ctx, dir, "yosys", "-q", "-l", "yosys.log", "-s", "model.ys")
	if ctx.Err() != nil {
		return fmt.Errorf("formal: yosys did not write the model within %v (%s)", r.timeout(), ys)
	}
	if err != nil {
		return fmt.Errorf("formal: yosys failed on %s: %v\n%s", ys, err, tail(out, 20))
	}
	return nil
}

// command runs a tool in its own process group, so that a timeout also ends the solver it
// started.
func command(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var buf strings.Builder
	cmd.Stdout = &buf
	cmd.Stderr = &buf
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return buf.String(), err
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return buf.String(), ctx.Err()
	}
}

var (
	reStep     = regexp.MustCompile(`(?:Checking assertions|Trying induction|Checking cover reachability) in step (\d+)`)
	reFailed   = regexp.MustCompile(`Assert failed in \S+: (\S+)`)
	reReached  = regexp.MustCompile(`Reached cover statement at (\S+) in step (\d+)`)
	reUnreach  = regexp.MustCompile(`Unreached cover statement at (\S+)`)
	reStatus   = regexp.MustCompile(`Status: (PASSED|FAILED)`)
	reInducted = regexp.MustCompile(`Temporal induction (successful|failed)`)
)

// smtbmc runs yosys-smtbmc once; kind names the run's log and trace files.
func (r Runner) smtbmc(ctx context.Context, dir string, p Proof, kind, model string, args ...string) Result {
	limit := r.timeout()
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	all := append([]string{"-s", r.solver(), "--noprogress"}, args...)
	if kind != "cover" {
		all = append(all, "--dump-vcd", kind+".raw.vcd", "--dump-yw", kind+".yw")
	}
	all = append(all, filepath.Base(model))
	out, err := command(ctx, dir, "yosys-smtbmc", all...)
	_ = os.WriteFile(filepath.Join(dir, kind+".log"), []byte(out), 0o644)
	res := parseSmtbmc(out, kind == "step")
	if ctx.Err() == context.DeadlineExceeded {
		return Result{Outcome: Timeout, Step: res.Step, Detail: fmt.Sprintf("yosys-smtbmc (%s, %s) did not finish within %v, waiting for the solver in step %d (%s)",
			kind, r.solver(), limit, res.Step, filepath.Join(dir, kind+".log"))}
	}
	if ctx.Err() != nil {
		return Result{Outcome: Error, Detail: ctx.Err().Error()}
	}
	if res.Outcome == Error && err != nil {
		res.Detail = fmt.Sprintf("yosys-smtbmc (%s): %v\n%s", kind, err, tail(out, 20))
	}
	if res.Outcome == Counterexample {
		res.VCD = filepath.Join(dir, kind+".raw.vcd")
	}
	return res
}

// parseSmtbmc reads yosys-smtbmc's output. A run that passed is Bounded (BMC, or an inductive
// step that closed: the caller names it Proven) or Reached (cover).
func parseSmtbmc(out string, induction bool) Result {
	var res Result
	status := ""
	inducted := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := reStep.FindStringSubmatch(line); m != nil {
			res.Step, _ = strconv.Atoi(m[1])
		}
		if m := reFailed.FindStringSubmatch(line); m != nil && res.Failed == "" {
			res.Failed = label(m[1])
		}
		if m := reReached.FindStringSubmatch(line); m != nil {
			res.Reached = append(res.Reached, label(m[1])+"@"+m[2])
		}
		if m := reUnreach.FindStringSubmatch(line); m != nil {
			res.Failed = label(m[1])
		}
		if m := reStatus.FindStringSubmatch(line); m != nil {
			status = m[1]
		}
		if m := reInducted.FindStringSubmatch(line); m != nil {
			inducted = m[1]
		}
	}
	sort.Strings(res.Reached)
	switch {
	case status == "PASSED" && len(res.Reached) > 0:
		res.Outcome = Reached
	case status == "PASSED":
		res.Outcome = Bounded
	case status == "FAILED" && strings.Contains(out, "Unreached cover"):
		res.Outcome = Unreached
	case status == "FAILED" && induction && inducted == "failed":
		res.Outcome = InductionFails
	case status == "FAILED" && res.Failed != "":
		res.Outcome = Counterexample
	default:
		res.Outcome = Error
		res.Detail = tail(out, 20)
	}
	return res
}

// label is an assertion's own name, without the instance path Yosys puts before it.
func label(name string) string {
	if i := strings.LastIndex(name, "."); i >= 0 {
		return name[i+1:]
	}
	return name
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ErrFailed is returned by Command when a proof did not end as it expects.
var ErrFailed = errors.New("formal: a proof did not end as expected")
