package main

import "testing"

// TestWrappersFresh fails when tracer/lht_wrappers.c is not what calls.txt generates.
func TestWrappersFresh(t *testing.T) {
	if err := run("../c", true); err != nil {
		t.Fatal(err)
	}
}

// TestTemplatesNameParams: every shape's template names only parameters its functions have
// (generate fails otherwise), and a shape unknown to the generator is refused.
func TestTemplatesNameParams(t *testing.T) {
	calls, err := readCalls("../c/calls.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := generate(calls); err != nil {
		t.Fatal(err)
	}
	bad := []call{{shape: "send", name: "MPI_Bogus", params: []param{{typ: "int", name: "count"}}, line: 1}}
	if _, err := generate(bad); err == nil {
		t.Fatal("a template naming $comm generated for a function without comm")
	}
}
