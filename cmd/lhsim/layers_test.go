package main

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCommandsReachNoModel: the command line hands typed configs to experiment and reads
// what it reports; it imports no package of the network models (netsim and below), so a rule
// about a model is checked once, where the model is (docs/architecture.md).
func TestCommandsReachNoModel(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == "github.com/lhsim/lhsim/netsim" || strings.HasPrefix(path, "github.com/lhsim/lhsim/netsim/") {
				t.Errorf("%s imports %s: go through experiment", name, path)
			}
		}
	}
}
