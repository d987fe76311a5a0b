// Command lhsim is the simulator's command line: a subcommand per experiment.
package main

// lhsim is the user's entry to the simulator: every experiment is a subcommand that
// prints a table, or JSON with --json (and writes JSON to a file with --out, a plot where it
// draws one). Each command is a value in commands (runner.go: its flags, then one call).
//
// Exit status: 0 when the command did its work (or printed the help asked for), 1 when the
// work failed (a failed write among them), 2 for a mistake on the command line (the
// command's usage follows the message), a path that cannot be used or names another (one
// line), an input file that is wrong, or a run that cannot be done (too big for memory).
// Every message is one line under one prefix, "lhsim COMMAND:" (docs/bad-input.md).

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/internal/cli"
)

// commands are lhsim's commands, by name; each file adds its own in init.
var commands []*command

func register(c ...*command) { commands = append(commands, c...) }

// find is the command of that name among cmds.
func find(cmds []*command, name string) *command {
	for _, c := range cmds {
		if c.name == name || strings.HasSuffix(c.name, " "+name) {
			return c
		}
	}
	return nil
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: lhsim COMMAND [flags]   (lhsim COMMAND -h, or lhsim help COMMAND, for its flags)")
	listCommands(w, commands, 8)
	fmt.Fprintln(w, "environment: LHSIM_MODEL and LHSIM_BRIDGE give --model and --bridge their defaults")
}

// listCommands writes a line per command, name (padded to width) and summary, by name.
func listCommands(w io.Writer, cmds []*command, width int) {
	sorted := slices.SortedFunc(slices.Values(cmds), func(a, b *command) int { return strings.Compare(a.name, b.name) })
	for _, c := range sorted {
		fmt.Fprintf(w, "  %-*s %s\n", width, c.name[strings.LastIndex(c.name, " ")+1:], c.summary)
	}
}

func main() { os.Exit(dispatch(os.Args[1:])) }

// dispatch runs one command line and returns the exit status.
func dispatch(args []string) int {
	name, err := runCommand(nil, commands, usage, args)
	if perr := cli.StopProfiles(); perr != nil && err == nil {
		err = perr
	}
	if err == nil {
		successLines.print()
	}
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		return 2
	}
	prefix := "lhsim"
	if name != "" {
		prefix += " " + name
	}
	fmt.Fprintf(os.Stderr, "%s: %s\n", prefix, oneLine(name, err))
	var pe pathError
	var cpe cli.PathError
	if errors.As(err, &pe) || errors.As(err, &cpe) || experiment.IsInput(err) {
		return 2
	}
	return 1
}

// runCommand runs args on one of cmds (the subcommands of group, or the top level), whose
// list help writes; it returns the name of the command that failed.
func runCommand(group *command, cmds []*command, help func(io.Writer), args []string) (string, error) {
	prefix := "lhsim"
	if group != nil {
		prefix += " " + group.name
	}
	if len(args) == 0 {
		if group != nil {
			fmt.Fprintf(os.Stderr, "%s needs a subcommand\n", prefix)
		}
		help(os.Stderr)
		return "", usageError{errors.New("no command")}
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) == 0 || name != "help" {
			help(os.Stdout)
			return "", flag.ErrHelp
		}
		if find(cmds, rest[0]) != nil {
			return runCommand(group, cmds, help, append(slices.Clone(rest), "-h"))
		}
		name = rest[0]
	}
	c := find(cmds, name)
	if c == nil {
		what := "command"
		if group != nil {
			what = "subcommand"
		}
		fmt.Fprintf(os.Stderr, "%s: unknown %s %q\n", prefix, what, name)
		help(os.Stderr)
		return "", usageError{fmt.Errorf("unknown %s %q", what, name)}
	}
	if c.subs != nil && (c.flags == nil || len(rest) > 0 && find(c.subs, rest[0]) != nil) {
		return runCommand(c, c.subs, func(w io.Writer) {
			fmt.Fprintf(w, "usage: lhsim %s SUBCOMMAND [flags]   (lhsim %s SUBCOMMAND -h for its flags)\n", c.name, c.name)
			listCommands(w, c.subs, 9)
			fmt.Fprintln(w, c.args)
		}, rest)
	}
	r := newRunner(c)
	run := c.flags(r)
	if err := r.parse(rest); err != nil {
		return c.name, err
	}
	return c.name, run()
}

// oneLine is err's message as one line under the prefix "lhsim NAME:": without the
// package's own prefixes when they repeat the command's name ("lhsim ib run: ib: ..." and
// "lhsim goal gen: goal gen: ..." read "lhsim ib run: ..."), its lines joined.
func oneLine(name string, err error) string {
	msg := strings.TrimSpace(err.Error())
	for trimmed := true; trimmed && name != ""; {
		trimmed = false
		words := strings.Fields(name)
		for i := range words { // the name, its tails (run: ...) and its words (ib: ...)
			for _, p := range []string{strings.Join(words[i:], " "), words[i]} {
				if strings.HasPrefix(msg, p+": ") {
					msg, trimmed = strings.TrimPrefix(msg, p+": "), true
				}
			}
		}
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", "; ")), " ")
}
