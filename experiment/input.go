package experiment

import "fmt"

// InputError is a run refused because what the user gave it is wrong (an input file that
// does not parse, a configuration that cannot run), as opposed to a run that failed: lhsim
// exits 2 for the one and 1 for the other.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Repeated says which entries of a list the user gave twice (a node in --rtl-nodes, a
// matcher in --matchers): each names one thing, so a second mention is a mistake, not a
// second run. name is the list's name in the message.
func Repeated[T comparable](name string, list []T) error {
	seen := make(map[T]bool, len(list))
	for _, v := range list {
		if seen[v] {
			return fmt.Errorf("%s: %v is named twice", name, v)
		}
		seen[v] = true
	}
	return nil
}
