package goal

import (
	"slices"
	"strings"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/experiment/rx"
	"github.com/lhsim/lhsim/netsim/goal"
	"github.com/lhsim/lhsim/netsim/match"
)

// Validate refuses, before any work, what the study cannot run (an experiment.InputError),
// naming the flags that chose it: a workload or matcher that does not exist, one named
// twice, fig6 without its matchers, no workload.
func (cfg MatchersConfig) Validate() error {
	for _, w := range cfg.Workloads {
		if !slices.Contains(goal.Patterns(), w) && w != rx.Fig6Workload && AppSchedule(w) == "" {
			return experiment.Refuse("--workloads: no workload %q; workloads: %s, %s; applications (make traces for more): %s", w,
				strings.Join(goal.Patterns(), ", "), rx.Fig6Workload, strings.Join(AppWorkloads(), ", "))
		}
	}
	var canon []string
	for _, m := range cfg.Matchers {
		spec, err := match.Parse(strings.TrimSpace(m))
		if err != nil {
			return experiment.Refuse("--matchers: %w", err)
		}
		canon = append(canon, spec.String())
	}
	if err := cfg.repeats(); err != nil {
		return experiment.Input(err)
	}
	if slices.Contains(cfg.Workloads, rx.Fig6Workload) && !slices.ContainsFunc(canon, func(m string) bool { return slices.Contains(rx.Fig6Matchers, m) }) {
		return experiment.Refuse("--workloads %s runs the matchers %s; --matchers has neither", rx.Fig6Workload, strings.Join(rx.Fig6Matchers, " and "))
	}
	if len(cfg.Workloads) == 0 && cfg.Schedule == "" {
		return experiment.Refuse("no workload: give --workloads or --schedule")
	}
	return nil
}

// PrepareInput is Prepare, its errors the input's (a schedule file, a pattern at --ranks),
// with the matchers named as match.Parse spells them and the RTL nodes checked against the
// ranks the study runs.
func (cfg MatchersConfig) PrepareInput() (MatchersConfig, error) {
	cfg.Matchers = slices.Clone(cfg.Matchers)
	for i, m := range cfg.Matchers {
		if spec, err := match.Parse(strings.TrimSpace(m)); err == nil {
			cfg.Matchers[i] = spec.String()
		}
	}
	cfg, err := cfg.Prepare()
	if err != nil {
		return cfg, experiment.Input(err)
	}
	for _, n := range cfg.RTLNodes {
		if n >= cfg.Ranks {
			return cfg, experiment.Refuse("--rtl-nodes: node %d: the workloads have ranks 0 to %d", n, cfg.Ranks-1)
		}
	}
	return cfg, nil
}

// DefaultMatchers is lhsim matchers' study: 256 ranks, 8-byte messages, the default
// workloads and matchers, lhsim search's set-up for fig6.
func DefaultMatchers() MatchersConfig {
	return MatchersConfig{Ranks: 256, Size: 8, Seed: 1, Fig6: rx.DefaultSearch(),
		Workloads: MatchersWorkloads, Matchers: MatchersDefault}
}
