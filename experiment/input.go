package experiment

// InputError is a run refused because what the user gave it is wrong (an input file that
// does not parse, a configuration that cannot run), as opposed to a run that failed: lhsim
// exits 2 for the one and 1 for the other.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }
