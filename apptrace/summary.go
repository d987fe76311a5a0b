package apptrace

import "fmt"

// Summary is what a conversion made, in a line: ranks, calls, operations, wildcard receives,
// communicators, cancels and the collectives' algorithms.
func (st Stats) Summary() string {
	return fmt.Sprintf("%d ranks, %d calls, %d operations, %d wildcard receives, %d communicators, %s, collectives: %s",
		st.Ranks, st.Calls, st.Ops, st.WildcardRecvs, st.Comms, st.cancels(), orNone(st.Collectives))
}

// Approximated is what Options.Approximate let through, in a line; "" when nothing was.
func (st Stats) Approximated() string {
	if st.CrossSpace == 0 && len(st.Unknown) == 0 {
		return ""
	}
	return fmt.Sprintf("%d any-tag receives that could take another tag space's message; unknown calls dropped: %s",
		st.CrossSpace, orNone(st.Unknown))
}

// orNone is countList's "name xN, ..." of m, "none" when empty.
func orNone(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	return countList(m)
}

// cancels says what became of the program's cancels: dropped as cancelled (and how many of
// those by assumption, the trace not saying), and kept because the cancel failed.
func (st Stats) cancels() string {
	s := fmt.Sprintf("%d cancelled", st.Cancelled)
	if st.CancelUnknown > 0 {
		s += fmt.Sprintf(" (%d with no outcome in the trace, taken as cancelled)", st.CancelUnknown)
	}
	if st.CancelFailed > 0 {
		s += fmt.Sprintf(", %d cancels that failed (kept)", st.CancelFailed)
	}
	return s
}
