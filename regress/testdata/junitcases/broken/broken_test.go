// Package broken does not build: the JUnit report must say so.
package broken

import "testing"

func TestNever(t *testing.T) { undefined() }
