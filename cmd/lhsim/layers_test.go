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
// about a model is checked once, where the model is (docs/architecture.md). Its runner's
// packages (internal/cli, internal/flagval) are held to the same rule.
func TestCommandsReachNoModel(t *testing.T) {
	var files []string
	for _, dir := range []string{".", "../../internal/cli", "../../internal/flagval"} {
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(names) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		files = append(files, names...)
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
