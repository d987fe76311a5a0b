package match

import "fmt"

// Policy is what a hardware list (alpu:N, hash:K:N, the ALPU of lhs+alpu:N) does when it is
// full, written after the matcher's name: alpu:256/overflow, hash:64:1024/onload.
type Policy string

const (
	// Overflow (the default): new entries go to a software list behind the hardware ones, and
	// entries the hardware frees are refilled from it, oldest first; the queue is in software
	// while that list holds entries.
	Overflow Policy = "overflow"
	// Onload, as HPE Slingshot's libfabric provider in its hybrid match mode: the insert that
	// finds the hardware full moves every hardware entry, oldest first, to the software list,
	// and the queue stays in software until it drains, then goes back to hardware.
	Onload Policy = "onload"
)

// Policies are the policies, for the usage.
var Policies = []Policy{Overflow, Onload}

func parsePolicy(s string) (Policy, error) {
	for _, p := range Policies {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("no policy %q (policies: overflow, onload)", s)
}

// mode is one hardware queue's record of where its matching happens: in hardware, or in
// software (entries behind a full list, or the whole queue onloaded), with the switches
// between them and the simulated time spent in software.
type mode struct {
	u      *unit
	policy Policy
	// onloaded: under Onload, the queue is in software until it drains.
	onloaded bool
	inSW     bool
	since    uint64 // when the queue went to software (ps)
}

// note records the queue's place after an operation: in software when sw entries are
// queued or the queue is onloaded.
func (m *mode) note(swLen int) {
	if m.onloaded && swLen == 0 {
		m.onloaded = false
	}
	sw := m.onloaded || swLen > 0
	if sw == m.inSW {
		return
	}
	m.inSW = sw
	m.u.switches++
	if sw {
		m.since = m.u.now
	} else {
		m.u.swPs += m.u.now - m.since
	}
	if m.u.open == nil {
		m.u.open = map[*mode]bool{}
	}
	m.u.open[m] = sw
}

// matched counts a match, served by the hardware or not.
func (m *mode) matched(hw bool) {
	m.u.matches++
	if hw {
		m.u.hwMatches++
	}
}
