// Package cli is the life of a run that every lhsim command shares, written once (as the Go
// tool's cmd/go/internal/base): the files a command writes (every path checked before any
// work, each file written beside its name and renamed into place), its profiles, its
// progress on stderr, and a sweep's parts run --jobs at a time or as a Slurm job array.
// cmd/lhsim's runner holds a command's flags and calls it.
package cli

// The one writer of a command's files. Before any work, every path a command was given is
// checked (CheckPaths): no output names an input or another output (the same file by name,
// link or inode), and each output can be written where it goes. A file is then written to a
// file beside it and renamed into place once whole (WriteFile), so a run that fails leaves
// no empty or partial file and never half of the old one; a device, FIFO or pipe is
// written in place. Every failed write or close is reported (exit 1), with the user's file
// name, never the temporary one.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/lhsim/lhsim/experiment"
	"github.com/lhsim/lhsim/verilator/fstfile"
)

// PathError is a path the command cannot use: one line, exit 2, before any work.
type PathError struct{ Err error }

func (e PathError) Error() string { return e.Err.Error() }

// PathFlag is a flag that names a file: an input read, or an output written.
type PathFlag struct {
	Name    string
	Value   *string
	Input   bool
	Regular bool // an output only a regular file can take (a file its own writer seeks in)
}

// CheckPaths refuses, before any work, an output that names an input or another output, and
// an output that cannot be written. An output flag whose name starts with plot draws a plot
// (experiment.CheckPlotFile), and --trace and --trace-file name FST waveforms (there must
// be room for their close: fstfile.CheckSpace).
func CheckPaths(paths []PathFlag) error {
	var given []PathFlag
	for _, p := range paths {
		if *p.Value != "" {
			given = append(given, p)
		}
	}
	for _, p := range given {
		if p.Input {
			continue
		}
		for _, q := range given {
			if q.Name != p.Name && (q.Input || q.Name < p.Name) && sameFile(*p.Value, *q.Value) {
				what := "another output"
				if q.Input {
					what = "an input"
				}
				return PathError{fmt.Errorf("--%s and --%s name the same file %s: %s would overwrite %s", p.Name, q.Name, *p.Value, "--"+p.Name, what)}
			}
		}
		if strings.HasPrefix(p.Name, "plot") {
			if err := experiment.CheckPlotFile(*p.Value); err != nil {
				return PathError{fmt.Errorf("--%s: %w", p.Name, err)}
			}
		}
		if st, err := os.Stat(*p.Value); p.Regular && err == nil && !st.Mode().IsRegular() {
			return PathError{fmt.Errorf("--%s %s: not a regular file, which this output is written as", p.Name, *p.Value)}
		}
		if err := canCreate(*p.Value); err != nil {
			return PathError{fmt.Errorf("--%s: %w", p.Name, err)}
		}
		if waveformFlags[p.Name] {
			if err := fstfile.CheckSpace(*p.Value, fstfile.Reserve); err != nil {
				return PathError{fmt.Errorf("--%s: %w", p.Name, err)}
			}
		}
	}
	return nil
}

// waveformFlags are the path flags that name an FST waveform: a file system without room
// for its close is refused before the run (package fstfile).
var waveformFlags = map[string]bool{"trace": true, "trace-file": true}

// sameFile reports whether a and b name one file: the same path once cleaned, or the same
// file on disk (a link, another spelling).
func sameFile(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// canCreate reports whether path can be written as WriteFile writes it, leaving nothing: a
// file beside it can be created (a regular file, or none yet), or the device opened.
func canCreate(path string) error {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("%s is a folder", path)
	case err == nil && st.Mode()&fs.ModeNamedPipe != 0:
		return nil // opened when written: opening it now would end the reader's input
	case err == nil && !st.Mode().IsRegular():
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		return f.Close()
	}
	f, err := createBeside(path)
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// createBeside creates a temporary file beside path (same folder, same extension, so that a
// writer that goes by the extension writes the same format); its errors name path.
func createBeside(path string) (*os.File, error) {
	ext := filepath.Ext(path)
	f, err := os.CreateTemp(filepath.Dir(path), "."+strings.TrimSuffix(filepath.Base(path), ext)+".*"+ext)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, &fs.PathError{Op: "open", Path: path, Err: pe.Err}
		}
		return nil, err
	}
	return f, nil
}

// Create opens the file an output is streamed to: a file beside path (Commit renames it to
// path), or path itself when it is a device, a FIFO or a pipe.
func Create(path string) (*os.File, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		return os.OpenFile(path, os.O_WRONLY, 0)
	}
	return createBeside(path)
}

// Commit closes f, which Create opened for path, and when keep renames it into place (a
// file beside path); otherwise, or when the close fails, it removes it. It returns the
// close's or the rename's error.
func Commit(f *os.File, path string, keep bool) error {
	err := f.Close()
	if f.Name() == path {
		return err
	}
	if err == nil && keep {
		if err = os.Chmod(f.Name(), 0o644); err == nil {
			err = os.Rename(f.Name(), path)
		}
	}
	if err != nil || !keep {
		os.Remove(f.Name())
	}
	return err
}

// WriteFile writes path through write, which is given the file name to write: a file beside
// path, renamed to path once write succeeded and removed otherwise; or path itself when it
// is a device, a FIFO or a pipe. flag names the file in errors.
func WriteFile(flag, path string, write func(file string) error) error {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		return Named(flag, path, write(path))
	}
	f, err := createBeside(path)
	if err != nil {
		return Named(flag, path, err)
	}
	tmp := f.Name()
	f.Close()
	err = write(tmp)
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return Named(flag, path, err)
	}
	return nil
}

// WriteBytes is WriteFile of bytes already made.
func WriteBytes(flag, path string, b []byte) error {
	return WriteTo(flag, path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// WriteTo is WriteFile of what write writes to an open file, whose close is checked too.
func WriteTo(flag, path string, write func(io.Writer) error) error {
	return WriteFile(flag, path, func(file string) error {
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

// Named is err with the temporary file's name replaced by the user's, under the flag.
func Named(flag, path string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path != path {
		err = &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	if flag == "" {
		return err
	}
	return fmt.Errorf("%s %s: %w", flag, path, withoutPath(err, path))
}

// withoutPath is err without its path, when it is a PathError of path (the flag names it).
func withoutPath(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return pe.Err
	}
	return err
}

// WriteResult prints v: JSON with --json (json), else the table; and writes JSON to --out.
// v is encoded before anything is written, so that a value JSON cannot hold (NaN, an
// infinity) fails the command with no output rather than half of it.
func WriteResult(asJSON bool, out *string, v any, table func(io.Writer) error) error {
	var js bytes.Buffer
	if asJSON || (out != nil && *out != "") {
		enc := json.NewEncoder(&js)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("the result cannot be written as JSON: %w", err)
		}
	}
	if out != nil && *out != "" {
		if err := WriteBytes("--out", *out, js.Bytes()); err != nil {
			return err
		}
	}
	var err error
	if asJSON {
		_, err = os.Stdout.Write(js.Bytes())
	} else {
		err = table(os.Stdout)
	}
	if err != nil {
		return fmt.Errorf("standard output: %w", withoutPath(err, os.Stdout.Name()))
	}
	return nil
}
