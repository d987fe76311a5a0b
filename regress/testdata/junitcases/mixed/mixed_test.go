// Package mixed is a stand-in suite for the JUnit conversion: a pass, a skip, a subtest that
// fails and a test that prints a line longer than go-junit-report's reader takes.
package mixed

import (
	"strings"
	"testing"
)

func TestPass(t *testing.T) {}

func TestSkip(t *testing.T) { t.Skip("needs gtkwave") }

func TestSub(t *testing.T) {
	t.Run("ok", func(t *testing.T) {})
	t.Run("bad", func(t *testing.T) { t.Error("bytes differ") })
}

func TestLongLine(t *testing.T) {
	t.Log(strings.Repeat("x", 100<<10))
	t.Error("a failure after a 100 KiB line")
}
