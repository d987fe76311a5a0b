package goal

import (
	"io"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/netsim/goal"
	"github.com/lhsim/lhsim/netsim/match"
)

// Patterns are the patterns goal gen writes (Schedgen's).
func Patterns() []string { return goal.Patterns() }

// DefaultGen is lhsim goal gen's configuration: 8 ranks, 8 bytes, 1 KiB segments, seed 1.
func DefaultGen() goal.GenConfig {
	return goal.GenConfig{Ranks: 8, Size: 8, Segment: 1024, Seed: 1, LateNs: goal.DefaultLateNs}
}

// Generate writes the schedule c describes; what c gets wrong is the input's fault.
func Generate(w io.Writer, c goal.GenConfig) error {
	return experiment.Input(goal.Generate(w, c))
}

// MatcherUsage lists the matchers, for -h.
var MatcherUsage = match.Usage

// MatcherRTLUsage says which matchers run as RTL beside their model, for -h.
var MatcherRTLUsage = match.RTLUsage
