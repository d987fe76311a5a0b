// Command lhsim is the user's entry to the simulator: every experiment is a subcommand that
// prints a table and can write JSON (and, where it draws, a plot).
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
)

// command is one subcommand; each lives in its own file and registers itself in init.
type command struct {
	summary string
	run     func(args []string) error
}

var commands = map[string]command{}

func register(name, summary string, run func(args []string) error) {
	commands[name] = command{summary: summary, run: run}
}

// bridgeFlag adds --bridge to a command: where the RTL runs. It sets LHSIM_BRIDGE, which
// nic.Open reads, so every device the command opens uses it.
func bridgeFlag(fs *flag.FlagSet) *string {
	return fs.String("bridge", os.Getenv("LHSIM_BRIDGE"), "where the RTL runs: cgo (this process) or plugin (its own process; see docs/plugin.md)")
}

func useBridge(b *string) error {
	switch *b {
	case "", "cgo", "plugin":
		return os.Setenv("LHSIM_BRIDGE", *b)
	}
	return fmt.Errorf("--bridge %q: want cgo or plugin", *b)
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: lhsim COMMAND [flags]   (lhsim COMMAND -h for its flags)")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-8s %s\n", n, commands[n].summary)
	}
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	c, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "lhsim: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err := c.run(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "lhsim %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
