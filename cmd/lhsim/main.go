// Command lhsim is the user's entry to the simulator: every experiment is a subcommand that
// prints a table and can write JSON (and, where it draws, a plot).
package main

import (
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
