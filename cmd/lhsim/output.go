package main

// The one writer of a command's files. Before any work, every path a command was given is
// checked (checkPaths): no output names an input or another output (the same file by name,
// link or inode), and each output can be written where it goes. A file is then written to a
// file beside it and renamed into place once whole (writeFile), so a run that fails leaves
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

// pathError is a path the command cannot use: one line, exit 2, before any work.
type pathError struct{ error }

// checkPaths refuses, before any work, an output that names an input or another output, and
// an output that cannot be written.
func (r *runner) checkPaths() error {
	var given []pathFlag
	for _, p := range r.paths {
		if *p.value != "" {
			given = append(given, p)
		}
	}
	for _, p := range given {
		if p.input {
			continue
		}
		for _, q := range given {
			if q.name != p.name && (q.input || q.name < p.name) && sameFile(*p.value, *q.value) {
				what := "another output"
				if q.input {
					what = "an input"
				}
				return pathError{fmt.Errorf("--%s and --%s name the same file %s: %s would overwrite %s", p.name, q.name, *p.value, "--"+p.name, what)}
			}
		}
		if strings.HasPrefix(p.name, "plot") {
			if err := experiment.CheckPlotFile(*p.value); err != nil {
				return pathError{fmt.Errorf("--%s: %w", p.name, err)}
			}
		}
		if st, err := os.Stat(*p.value); p.regular && err == nil && !st.Mode().IsRegular() {
			return pathError{fmt.Errorf("--%s %s: not a regular file, which this output is written as", p.name, *p.value)}
		}
		if err := canCreate(*p.value); err != nil {
			return pathError{fmt.Errorf("--%s: %w", p.name, err)}
		}
		if waveformFlags[p.name] {
			if err := fstfile.CheckSpace(*p.value, fstfile.Reserve); err != nil {
				return pathError{fmt.Errorf("--%s: %w", p.name, err)}
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

// canCreate reports whether path can be written as writeFile writes it, leaving nothing: a
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

// create opens the file an output is streamed to: a file beside path (commit renames it to
// path), or path itself when it is a device, a FIFO or a pipe.
func create(path string) (*os.File, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		return os.OpenFile(path, os.O_WRONLY, 0)
	}
	return createBeside(path)
}

// commit closes f, which create opened for path, and when keep renames it into place (a
// file beside path); otherwise, or when the close fails, it removes it. It returns the
// close's or the rename's error.
func commit(f *os.File, path string, keep bool) error {
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

// writeFile writes path through write, which is given the file name to write: a file beside
// path, renamed to path once write succeeded and removed otherwise; or path itself when it
// is a device, a FIFO or a pipe. flag names the file in errors.
func writeFile(flag, path string, write func(file string) error) error {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		return named(flag, path, write(path))
	}
	f, err := createBeside(path)
	if err != nil {
		return named(flag, path, err)
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
		return named(flag, path, err)
	}
	return nil
}

// writeBytes is writeFile of bytes already made.
func writeBytes(flag, path string, b []byte) error {
	return writeFile(flag, path, func(file string) error { return writeAll(file, b) })
}

// writeAll writes b to file and closes it, reporting a failed write or close.
func writeAll(file string, b []byte) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// named is err with the temporary file's name replaced by the user's, under the flag.
func named(flag, path string, err error) error {
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

// writeResult prints v: JSON with --json (json), else the table; and writes JSON to --out.
// v is encoded before anything is written, so that a value JSON cannot hold (NaN, an
// infinity) fails the command with no output rather than half of it.
func writeResult(asJSON bool, out *string, v any, table func(io.Writer) error) error {
	var js bytes.Buffer
	if asJSON || (out != nil && *out != "") {
		enc := json.NewEncoder(&js)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("the result cannot be written as JSON: %w", err)
		}
	}
	if out != nil && *out != "" {
		if err := writeBytes("--out", *out, js.Bytes()); err != nil {
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
