package waves

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ErrNoGTKWave is returned when gtkwave or xvfb-run is not installed (scripts/setup.sh
// installs both).
var ErrNoGTKWave = errors.New("gtkwave and xvfb-run are needed (make setup)")

// Probe asks for a trace's value at a named marker (its letter, 'A' for the first).
type Probe struct {
	Marker byte
	Signal string // as in the save file, range included
}

// View is what GTKWave showed for a dump opened with a save file.
type View struct {
	Signals []string         // traces displayed, in order
	Markers map[byte]int64   // named marker times by letter; -1 when unset
	Values  map[Probe]string // probed values, as GTKWave shows them (enums translated)
	MaxTime int64            // last time in the dump
	Log     string           // GTKWave's own output
	Missing []string         // traces the save file names and GTKWave did not display
}

// gtkwaveComplaint matches what GTKWave prints when it cannot load something or a script
// command fails.
var gtkwaveComplaint = regexp.MustCompile(`(?i)\b(error|invalid|could not|cannot|can't|unable|failed|not found)\b`)

// Open loads dump with the save file in the real GTKWave, under a virtual X server, runs a Tcl
// script that reports what it displays, and quits. It fails if GTKWave complains or does not
// finish the script; names the save file shows that the dump lacks end up in View.Missing.
func Open(ctx context.Context, dump, save string, probes []Probe) (*View, error) {
	for _, tool := range []string{"gtkwave", "xvfb-run"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("%w: %s not found", ErrNoGTKWave, tool)
		}
	}
	want, err := readSignalsFile(save)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "lhsim-gtkwave")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	report := filepath.Join(dir, "view.txt")
	var tcl strings.Builder
	fmt.Fprintf(&tcl, "set out [open {%s} w]\n", report)
	fmt.Fprintf(&tcl, "foreach s [gtkwave::getDisplayedSignals] { puts $out \"SIGNAL $s\" }\n")
	for m := byte('A'); m <= 'Z'; m++ {
		fmt.Fprintf(&tcl, "puts $out \"MARKER %c [gtkwave::getNamedMarker %c]\"\n", m, m)
	}
	for i, p := range probes {
		fmt.Fprintf(&tcl, "puts $out \"VALUE %d [gtkwave::getTraceValueAtNamedMarkerFromName %c {%s}]\"\n", i, p.Marker, p.Signal)
	}
	fmt.Fprintf(&tcl, "puts $out \"MAX [gtkwave::getMaxTime]\"\nputs $out END\nclose $out\ngtkwave::/File/Quit\n")
	script := filepath.Join(dir, "view.tcl")
	if err := os.WriteFile(script, []byte(tcl.String()), 0o644); err != nil {
		return nil, err
	}

	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "xvfb-run", "-a", "gtkwave", "-S", script, dump, save)
	cmd.Env = append(os.Environ(), "HOME="+dir) // no user .gtkwaverc
	out, err := cmd.CombinedOutput()
	v := &View{Markers: map[byte]int64{}, Values: map[Probe]string{}, Log: string(out)}
	if err != nil {
		return v, fmt.Errorf("waves: gtkwave: %w\n%s", err, out)
	}
	for _, line := range strings.Split(v.Log, "\n") {
		if gtkwaveComplaint.MatchString(line) {
			return v, fmt.Errorf("waves: gtkwave reported: %s", strings.TrimSpace(line))
		}
	}
	f, err := os.Open(report)
	if err != nil {
		return v, fmt.Errorf("waves: gtkwave did not run the script: %w\n%s", err, out)
	}
	defer f.Close()
	done := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		kind, rest, _ := strings.Cut(sc.Text(), " ")
		switch kind {
		case "SIGNAL":
			v.Signals = append(v.Signals, rest)
		case "MARKER":
			letter, t, _ := strings.Cut(rest, " ")
			n, _ := strconv.ParseInt(t, 10, 64)
			v.Markers[letter[0]] = n
		case "VALUE":
			i, val, _ := strings.Cut(rest, " ")
			k, _ := strconv.Atoi(i)
			v.Values[probes[k]] = val
		case "MAX":
			v.MaxTime, _ = strconv.ParseInt(rest, 10, 64)
		case "END":
			done = true
		}
	}
	if !done {
		return v, fmt.Errorf("waves: gtkwave stopped before the end of the script\n%s", out)
	}
	shown := map[string]bool{}
	for _, s := range v.Signals {
		shown[s] = true
	}
	for _, s := range want {
		if !shown[s] {
			v.Missing = append(v.Missing, s)
		}
	}
	return v, nil
}

func readSignalsFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadSignals(f)
}
