package goal

// lhsim goal --qstat PREFIX: LogGOPSim's six queue-statistics files (netsim/goal/qstat.go).

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lhsim/lhsim/netsim/goal"
)

// CheckQStat refuses a --qstat prefix before the run: one whose directory does not exist,
// or one of whose six files is the schedule (the files are outputs; writing them would
// destroy the input).
func CheckQStat(prefix, schedule string) error {
	if prefix == "" {
		return nil
	}
	dir := filepath.Dir(goal.QStatPath(prefix, goal.QStatFiles[0]))
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("--qstat %s: no directory %s to write its files in", prefix, dir)
	}
	in, inErr := os.Stat(schedule)
	absIn, _ := filepath.Abs(schedule)
	for _, suf := range goal.QStatFiles {
		f := goal.QStatPath(prefix, suf)
		abs, _ := filepath.Abs(f)
		same := abs == absIn
		if st, err := os.Stat(f); err == nil && inErr == nil && os.SameFile(st, in) {
			same = true
		}
		if same {
			return fmt.Errorf("--qstat %s: its file %s is the schedule %s (an input): choose another prefix", prefix, f, schedule)
		}
	}
	return nil
}

// writeQStat writes cfg.QStat's files for a run that ended with runErr. As LogGOPSim (which
// writes them only when every queue is empty at the end), a run that left operations
// unmatched writes none, and its error says so.
func writeQStat(cfg Config, res *goal.Result, runErr error) error {
	if cfg.QStat == "" {
		return runErr
	}
	if runErr != nil {
		if errors.Is(runErr, ErrUnmatched) {
			return fmt.Errorf("%w\n(--qstat: no files written: as LogGOPSim, only a run that ends with empty queues writes them)", runErr)
		}
		return runErr
	}
	return goal.WriteQStat(cfg.QStat, res)
}
