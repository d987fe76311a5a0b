// Package simtime is simulated time: integer picoseconds, its units, and the conversion of a
// number the user typed into it. The engine (netsim) runs on it; the command line parses its
// time flags with it.
package simtime

import (
	"errors"
	"fmt"
	"math"
)

// Time is simulated time in picoseconds.
type Time int64

// Units of Time.
const (
	Picosecond  Time = 1
	Nanosecond  Time = 1000
	Microsecond Time = 1000 * Nanosecond
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond
	// Never is later than any event.
	Never Time = math.MaxInt64
)

// NS converts nanoseconds (a parameter from a paper) to Time, rounded to the picosecond.
func NS(ns float64) Time { return Time(math.Round(ns * 1000)) }

// MaxInput is the longest time a user may give for one delay or one moment of a run: an hour.
// Simulated time ends at Never (about 106 days of picoseconds); an hour leaves room for a run
// to add a million such delays without passing it.
const MaxInput = 3600 * Second

// FromFloat converts v units (a number as the user typed it, in ns, µs, cycles) to Time,
// rounded to the picosecond, or says what is wrong with it: not a finite number, negative,
// past MaxInput, or not zero but rounding to 0 ps. The check comes before the conversion,
// so that no value wraps around.
func FromFloat(v float64, unit Time) (Time, error) {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, errors.New("not a finite number")
	case v < 0:
		return 0, errors.New("negative")
	case v == 0:
		return 0, nil
	case unit <= 0:
		return 0, fmt.Errorf("the unit is %d ps", unit)
	case v*float64(unit) > float64(MaxInput):
		return 0, errors.New("past an hour, the longest time a run takes as input")
	}
	t := Time(math.Round(v * float64(unit)))
	if t == 0 && v != 0 {
		return 0, errors.New("not zero but under half a picosecond, the simulator's step")
	}
	return t, nil
}

// Microseconds is t in microseconds, for reports.
func (t Time) Microseconds() float64 { return float64(t) / float64(Microsecond) }

// Nanoseconds is t in nanoseconds, for reports.
func (t Time) Nanoseconds() float64 { return float64(t) / float64(Nanosecond) }

func (t Time) String() string { return fmt.Sprintf("%.3f ns", t.Nanoseconds()) }
