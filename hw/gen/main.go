// Command gen writes the files made from hw/contract.json (go generate ./hw).
package main

// gen writes the files made from hw/contract.json: hw/contract_gen.go,
// rtl/lhs_regs.vh, verilator/lhs_regs.h and the generated tables of docs/design.md
// (go generate ./hw, or make generate). With -check it writes nothing and fails when one of
// them is stale (make lint).

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lhsim/lhsim/hw/internal/contract"
)

func main() {
	check := flag.Bool("check", false, "only report stale files; exit 1 when there are any")
	flag.Parse()
	if err := run(*check); err != nil {
		fmt.Fprintln(os.Stderr, "hw/gen:", err)
		os.Exit(1)
	}
}

func run(check bool) error {
	root, err := contract.FindRoot(".")
	if err != nil {
		return err
	}
	if check {
		stale, err := contract.Stale(root)
		if err != nil {
			return err
		}
		for _, p := range stale {
			fmt.Fprintf(os.Stderr, "stale: %s (run go generate ./hw)\n", p)
		}
		if len(stale) > 0 {
			return fmt.Errorf("%d generated file(s) stale", len(stale))
		}
		return nil
	}
	files, err := contract.Generate(root)
	if err != nil {
		return err
	}
	for _, f := range files {
		path := filepath.Join(root, f.Path)
		if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, f.Data) {
			continue
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", f.Path)
	}
	return nil
}
