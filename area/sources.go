package area

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
)

// DesignFiles are the files design top is made of, relative to root: the rtl/*.v that defines
// top, those that define the modules it instantiates (transitively), and the headers they
// include (rtl/*.vh), in name order. Yosys reads these and nothing else for the design, so
// an edit to another design's file leaves its synthesis, and its report, as it was (reading
// every rtl/*.v, a comment added to lhs_top.v moved alpu's LUT count).
func DesignFiles(root, top string) ([]string, error) {
	return sources(root, []string{top})
}

// sources is the union of the tops' DesignFiles.
func sources(root string, tops []string) ([]string, error) {
	rtl, err := readRTL(root)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var walk func(mod string) error
	walk = func(mod string) error {
		f, ok := rtl.definedIn[mod]
		if !ok {
			return fmt.Errorf("area: no module %s in %s", mod, filepath.Join(root, "rtl"))
		}
		if seen[f] {
			return nil
		}
		seen[f] = true
		for _, inc := range rtl.includes[f] {
			seen[inc] = true
		}
		for _, m := range rtl.uses[f] {
			if err := walk(m); err != nil {
				return err
			}
		}
		return nil
	}
	for _, t := range tops {
		if err := walk(t); err != nil {
			return nil, err
		}
	}
	var out []string
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out, nil
}

// rtlTree is what rtl/*.v say of each other: which file defines each module, the other
// modules each file names in its code (instantiates) and the headers it includes.
type rtlTree struct {
	definedIn map[string]string   // module → file
	uses      map[string][]string // file → modules defined elsewhere that its code names
	includes  map[string][]string // file → rtl/*.vh it includes
}

var (
	verilogComment = regexp.MustCompile(`(?s)//[^\n]*|/\*.*?\*/`)
	verilogModule  = regexp.MustCompile(`\bmodule\s+([A-Za-z_][A-Za-z0-9_$]*)`)
	verilogInclude = regexp.MustCompile("`include\\s+\"([^\"]+)\"")
	verilogIdent   = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_$]*`)
)

func readRTL(root string) (rtlTree, error) {
	t := rtlTree{definedIn: map[string]string{}, uses: map[string][]string{}, includes: map[string][]string{}}
	paths, err := filepath.Glob(filepath.Join(root, "rtl", "*.v"))
	if err != nil {
		return t, err
	}
	if len(paths) == 0 {
		return t, fmt.Errorf("area: no Verilog sources in %s", filepath.Join(root, "rtl"))
	}
	code := map[string]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return t, err
		}
		f := filepath.ToSlash(filepath.Join("rtl", filepath.Base(p)))
		code[f] = verilogComment.ReplaceAllString(string(data), "")
		for _, m := range verilogModule.FindAllStringSubmatch(code[f], -1) {
			t.definedIn[m[1]] = f
		}
		for _, m := range verilogInclude.FindAllStringSubmatch(code[f], -1) {
			inc := filepath.ToSlash(filepath.Join("rtl", m[1]))
			if _, err := os.Stat(filepath.Join(root, inc)); err != nil {
				return t, fmt.Errorf("area: %s includes %s: %w", f, m[1], err)
			}
			t.includes[f] = append(t.includes[f], inc)
		}
	}
	for f, c := range code {
		for _, id := range verilogIdent.FindAllString(c, -1) {
			if def, ok := t.definedIn[id]; ok && def != f && !slices.Contains(t.uses[f], id) {
				t.uses[f] = append(t.uses[f], id)
			}
		}
	}
	return t, nil
}
