// Package synthreports carries the area flow's checked-in Yosys summary inside the binary,
// so that the commands that read it (lhsim matchers, lhsim area --cached) work wherever the
// binary is, not only inside the source tree. `make synth` rewrites summary.json; the next
// build embeds it.
package synthreports

import _ "embed"

// Summary is summary.json as checked in beside this file (area.Summary's JSON).
//
//go:embed summary.json
var Summary []byte
