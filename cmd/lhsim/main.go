// Command lhsim is the simulator's command line: a subcommand per experiment.
package main

// lhsim is the user's entry to the simulator: every experiment is a subcommand that
// prints a table, or JSON with --json (and writes JSON to a file with --out, a plot where it
// draws one).
//
// Exit status: 0 when the command did its work (or printed the help asked for), 1 when the
// work failed, 2 for a mistake on the command line (the command's usage follows the message)
// or in an input file, or a run that cannot be done (too big for memory). Every message is
// one line under one prefix, "lhsim COMMAND:" (docs/bad-input.md).

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/lhsim/lhsim/checkpoint"
	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/experiment/net"
	"github.com/lhsim/lhsim/netsim/fabric"
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

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: lhsim COMMAND [flags]   (lhsim COMMAND -h, or lhsim help COMMAND, for its flags)")
	listCommands(w, commands, 8)
	fmt.Fprintln(w, "environment: LHSIM_MODEL and LHSIM_BRIDGE give --model and --bridge their defaults")
}

// listCommands writes a line per command, name (padded to width) and summary, by name.
func listCommands(w io.Writer, cmds map[string]command, width int) {
	for _, n := range slices.Sorted(maps.Keys(cmds)) {
		fmt.Fprintf(w, "  %-*s %s\n", width, n, cmds[n].summary)
	}
}

// usageError is a mistake on the command line, already reported with the command's usage.
type usageError struct{ error }

func main() { os.Exit(dispatch(os.Args[1:])) }

// dispatch runs one command line and returns the exit status.
func dispatch(args []string) int {
	if len(args) == 0 {
		usage(os.Stderr)
		return 2
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) == 1 && name == "help" {
			if _, ok := commands[rest[0]]; ok {
				return dispatch([]string{rest[0], "-h"})
			}
		}
		usage(os.Stdout)
		return 0
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "lhsim: unknown command %q\n", name)
		usage(os.Stderr)
		return 2
	}
	err := c.run(rest)
	if perr := stopProfiles(); perr != nil && err == nil {
		err = perr
	}
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		return 2
	}
	var sub subcommandError
	if errors.As(err, &sub) {
		name, err = sub.name, sub.err
	}
	fmt.Fprintf(os.Stderr, "lhsim %s: %s\n", name, oneLine(name, err))
	if isInputError(err) {
		return 2
	}
	return 1
}

// subcommandError is a failure of a subcommand (lhsim ib run), reported under its name.
type subcommandError struct {
	name string
	err  error
}

func (e subcommandError) Error() string { return e.err.Error() }
func (e subcommandError) Unwrap() error { return e.err }

// isInputError reports whether a run was refused for what the user gave it (an input
// file, a configuration that cannot run): exit 2, as for the command line; a run that
// failed exits 1.
func isInputError(err error) bool {
	var ie *experiment.InputError
	var te *net.TrafficInputError
	return errors.As(err, &ie) || errors.As(err, &te) ||
		errors.Is(err, checkpoint.ErrFormat) || errors.Is(err, fabric.ErrTooBig)
}

// oneLine is err's message as one line under the prefix "lhsim NAME:": without the
// package's own prefix when it repeats the command's name ("lhsim ib run: ib: ..." reads
// "lhsim ib run: ..."), its lines joined.
func oneLine(name string, err error) string {
	msg := strings.TrimSpace(err.Error())
	for _, w := range slices.Backward(strings.Fields(name)) {
		msg = strings.TrimPrefix(msg, w+": ")
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", "; ")), " ")
}

// newFlags is a command's flag set: parse reports its mistakes with its usage.
func newFlags(name, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: lhsim %s [flags]\n  %s\nflags:\n", name, summary)
		fs.PrintDefaults()
	}
	addProfileFlags(fs)
	return fs
}

// parse parses args. -h prints the usage on stdout (flag.ErrHelp: exit 0); any other
// mistake, a stray argument among them, is reported on stderr with the usage (exit 2).
func parse(fs *flag.FlagSet, args []string) error {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(os.Stdout)
			fs.Usage()
			return flag.ErrHelp
		}
	}
	// The flag package's own message is replaced by one under the command's prefix; a
	// number flag says what is wrong with the value as typed (numbers.go).
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		fs.VisitAll(func(f *flag.Flag) {
			if nf, ok := f.Value.(*numFlag); ok && nf.err != nil {
				err = fmt.Errorf("--%s %s: %w", f.Name, nf.bad, nf.err)
			}
		})
		return badUsage(fs, err)
	}
	if fs.NArg() > 0 {
		return badUsage(fs, fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if err := startProfiles(fs); err != nil {
		return badUsage(fs, err)
	}
	return nil
}

// badUsage reports a flag value that parses but makes no sense, with the usage.
func badUsage(fs *flag.FlagSet, err error) error {
	fmt.Fprintf(os.Stderr, "lhsim %s: %v\n", fs.Name(), err)
	fs.SetOutput(os.Stderr)
	fs.Usage()
	return usageError{err}
}
