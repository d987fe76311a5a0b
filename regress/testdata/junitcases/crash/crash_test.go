// Package crash fails outside any test: its binary exits before the tests run.
package crash

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	os.Stdout.WriteString("crashed before the tests\n")
	os.Exit(3)
}

func TestNever(t *testing.T) {}
