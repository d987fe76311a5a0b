package regress

// On Slurm a regression is a job array of its seeds (lhsim regress --slurm, docs/cluster.md):
// a unit per seed, the test binary (and the files the tests look for beside it) in the work
// directory's bin/, and the seeds' results merged back in seed order.

import (
	"context"
	"fmt"
	"io"
	"maps"
	"strconv"
	"time"

	"github.com/lhsim/lhsim/slurm"
)

// BinaryName is the test binary's name in a Slurm work directory's bin/.
const BinaryName = "regress.test"

// Sweep is the regression as a Slurm sweep: a unit per seed, with the built test binary and
// files (name in bin/: path) beside it; each array task runs with args.
func (c Config) Sweep(args []string, files map[string]string) slurm.Sweep {
	sw := slurm.Sweep{Command: "regress", Noun: "seeds", Args: args, Files: map[string]string{BinaryName: c.Binary}}
	maps.Copy(sw.Files, files)
	for _, s := range c.Seeds {
		sw.Units = append(sw.Units, slurm.Unit{Key: fmt.Sprintf("seed-%d", s), Label: fmt.Sprint(s)})
	}
	return sw
}

// RunUnit is an array task's run of one of Sweep's units: its seed, with c.Binary.
func RunUnit(ctx context.Context, c Config, u slurm.Unit) (any, error) {
	seed, err := strconv.ParseUint(u.Label, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("unit %q is not a seed", u.Label)
	}
	return RunSeed(ctx, c, seed), nil
}

// Merge is the report of the regression Slurm ran (res), started at start: the seeds'
// results in c's order, each checked to be its seed's.
func Merge(c Config, res *slurm.Outcome, start time.Time) (*Report, error) {
	results, err := slurm.Decode[SeedResult](res)
	if err != nil {
		return nil, err
	}
	for i, s := range results {
		if s.Seed != c.Seeds[i] {
			return nil, fmt.Errorf("slurm: the result of seed %d in %s says seed %d: not merged", c.Seeds[i], res.Dir, s.Seed)
		}
	}
	return &Report{Config: c, Results: results, Elapsed: time.Since(start), Where: res.Where()}, nil
}

// WriteTable writes Print's table and where each failed seed's waveform is.
func (r *Report) WriteTable(w io.Writer) error {
	if err := r.Print(w); err != nil {
		return err
	}
	for _, s := range r.Results {
		if s.Waveform != "" {
			fmt.Fprintf(w, "seed %d: waveform %s\n", s.Seed, s.Waveform)
		}
	}
	return nil
}
