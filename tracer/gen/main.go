// Command gen writes the tracer's MPI wrappers (tracer/c/lht_wrappers.c) from tracer/c/calls.txt:
// one C wrapper per MPI function and, for Open MPI's Fortran library (which calls PMPI_*
// itself), one Fortran entry point per function (go generate ./tracer). With -check it writes
// nothing and fails when the file is stale.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

func main() {
	check := flag.Bool("check", false, "only report a stale lht_wrappers.c; exit 1 when it is")
	dir := flag.String("dir", ".", "the folder of calls.txt and the C sources")
	flag.Parse()
	if err := run(*dir, *check); err != nil {
		fmt.Fprintln(os.Stderr, "tracer/gen:", err)
		os.Exit(1)
	}
}

func run(dir string, check bool) error {
	calls, err := readCalls(filepath.Join(dir, "calls.txt"))
	if err != nil {
		return err
	}
	src, err := generate(calls)
	if err != nil {
		return err
	}
	out := filepath.Join(dir, "lht_wrappers.c")
	if check {
		old, err := os.ReadFile(out)
		if err != nil || !bytes.Equal(old, src) {
			return fmt.Errorf("%s is stale: run go generate ./tracer", out)
		}
		return nil
	}
	return os.WriteFile(out, src, 0o644)
}

// param is one parameter of a prototype.
type param struct {
	typ, name string // "const int", "recvcounts"
	ptr, arr  bool   // "*name", "name[]"
}

type call struct {
	shape, name string
	params      []param
	line        int
}

var protoRE = regexp.MustCompile(`^(\w+)\s+(MPI_\w+)\((.*)\)$`)

func readCalls(path string) ([]call, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var calls []call
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<16)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		m := protoRE.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("%s:%d: want SHAPE MPI_Name(params)", path, n)
		}
		if _, ok := shapes[m[1]]; !ok {
			return nil, fmt.Errorf("%s:%d: unknown shape %q", path, n, m[1])
		}
		c := call{shape: m[1], name: m[2], line: n}
		for _, a := range strings.Split(m[3], ",") {
			a = strings.TrimSpace(a)
			p := param{}
			if strings.HasSuffix(a, "[]") {
				p.arr, a = true, strings.TrimSpace(strings.TrimSuffix(a, "[]"))
			}
			i := strings.LastIndexAny(a, " *")
			if i < 0 {
				return nil, fmt.Errorf("%s:%d: parameter %q has no name", path, n, a)
			}
			p.name = a[i+1:]
			t := strings.TrimSpace(a[:i+1])
			if strings.HasSuffix(t, "*") {
				p.ptr, t = true, strings.TrimSpace(strings.TrimSuffix(t, "*"))
			}
			p.typ = t
			c.params = append(c.params, p)
		}
		calls = append(calls, c)
	}
	return calls, sc.Err()
}

// cDecl is the parameter as the C prototype declares it.
func (p param) cDecl() string {
	s := p.typ + " "
	if p.ptr {
		s += "*"
	}
	s += p.name
	if p.arr {
		s += "[]"
	}
	return s
}

// fDecl is the parameter as a Fortran caller passes it: every argument by reference, handles
// and integers as MPI_Fint.
func (p param) fDecl() string {
	base := strings.TrimPrefix(p.typ, "const ")
	switch {
	case base == "void":
		return "void *" + p.name
	case base == "int" || strings.HasPrefix(base, "MPI_") && base != "MPI_Aint" && base != "MPI_Offset" && base != "MPI_Count":
		return "MPI_Fint *" + p.name
	}
	return base + " *" + p.name
}

// value is the C expression of a parameter's value in a wrapper ("$name"); elem that of an
// array's element i ("$name[i]"). Fortran's indices count from 1.
func (p param) value(fortran bool) string {
	base := strings.TrimPrefix(p.typ, "const ")
	if !fortran {
		switch {
		case base == "MPI_Request" || base == "MPI_Message":
			return "lht_handle(*" + p.name + ")"
		case p.ptr:
			return "(*" + p.name + ")"
		}
		return p.name
	}
	switch base {
	case "MPI_Comm":
		return "PMPI_Comm_f2c(*" + p.name + ")"
	case "MPI_Datatype":
		return "PMPI_Type_f2c(*" + p.name + ")"
	case "MPI_Request", "MPI_Message":
		return "lht_fhandle(*" + p.name + ")"
	}
	if p.name == "index" {
		return "(*index == MPI_UNDEFINED ? MPI_UNDEFINED : *index - 1)"
	}
	return "(*" + p.name + ")"
}

func (p param) elem(i string, fortran bool) string {
	base := strings.TrimPrefix(p.typ, "const ")
	switch {
	case base == "MPI_Request" && fortran:
		return "lht_fhandle(" + p.name + "[" + i + "])"
	case base == "MPI_Request":
		return "lht_handle(" + p.name + "[" + i + "])"
	case p.name == "array_of_indices" && fortran:
		return "(" + p.name + "[" + i + "] - 1)"
	}
	return p.name + "[" + i + "]"
}

var placeRE = regexp.MustCompile(`\$(\w+)(?:\[(\w+)\])?`)

// expand replaces $name and $name[i] in a template; $NULLREQ is the null request's value and
// $INPLACE(name) whether a buffer is MPI_IN_PLACE (C only: Fortran's sentinel is not C's).
func expand(tmpl string, c call, fortran bool) (string, error) {
	var err error
	tmpl = strings.ReplaceAll(tmpl, "$NULLREQ", map[bool]string{false: "lht.null_req", true: "lht.null_freq"}[fortran])
	tmpl = regexp.MustCompile(`\$INPLACE\((\w+)\)`).ReplaceAllStringFunc(tmpl, func(s string) string {
		if fortran {
			return "0"
		}
		return "(" + s[len("$INPLACE("):len(s)-1] + " == MPI_IN_PLACE)"
	})
	out := placeRE.ReplaceAllStringFunc(tmpl, func(s string) string {
		m := placeRE.FindStringSubmatch(s)
		for _, p := range c.params {
			if p.name != m[1] {
				continue
			}
			if m[2] != "" {
				return p.elem(m[2], fortran)
			}
			return p.value(fortran)
		}
		// The shape's own names: the parent communicator and the new one of commcreate.
		switch m[1] {
		case "PARENT":
			for _, p := range c.params {
				if p.typ == "MPI_Comm" && !p.ptr {
					return p.value(fortran)
				}
			}
		case "NEWCOMM":
			for _, p := range c.params {
				if p.typ == "MPI_Comm" && p.ptr {
					return p.value(fortran)
				}
			}
		case "CREQUEST":
			// The request as a C handle, for PMPI calls of the tracer's own.
			if fortran {
				return "PMPI_Request_f2c(*request)"
			}
			return "(*request)"
		case "FID":
			return "LHT_F_" + strings.TrimPrefix(c.name, "MPI_")
		}
		err = fmt.Errorf("calls.txt:%d: %s: the %s template names $%s, which %s has not", c.line, c.name, c.shape, m[1], c.name)
		return s
	})
	return out, err
}

func generate(calls []call) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`// Code generated by tracer/gen from tracer/c/calls.txt; DO NOT EDIT.

// The MPI wrappers of lhsim's tracer: each records one call (docs/apps.md: the trace format)
// and calls the PMPI function. The Fortran entry points (LHT_FORTRAN: Open MPI, whose Fortran
// library calls PMPI_* itself) record the same call and call Open MPI's pmpi_*_.

#include "lht.h"

`)
	// The first names are lht.h's own records (LHT_F_END ... LHT_F_FINALIZE).
	b.WriteString("const char *const lht_func_names[] = {\n\t\"LHT_End\",\n\t\"LHT_Comm\",\n\t\"MPI_Init\",\n\t\"MPI_Init_thread\",\n\t\"MPI_Finalize\",\n\t\"LHT_Polls\",\n")
	for _, c := range calls {
		fmt.Fprintf(&b, "\t%q,\n", c.name)
	}
	fmt.Fprintf(&b, "};\nconst int lht_nfuncs = %d;\n\n", len(calls)+firstGenerated)
	for i, c := range calls {
		fmt.Fprintf(&b, "#define LHT_F_%s %d\n", strings.TrimPrefix(c.name, "MPI_"), i+firstGenerated)
	}
	b.WriteString("\n")
	for _, c := range calls {
		sh := shapes[c.shape]
		var cargs, args, fargs, fcall []string
		for _, p := range c.params {
			cargs = append(cargs, p.cDecl())
			args = append(args, p.name)
			fargs = append(fargs, p.fDecl())
			fcall = append(fcall, p.name)
		}
		pre, err := expand(sh.pre, c, false)
		if err != nil {
			return nil, err
		}
		post, err := expand(sh.post, c, false)
		if err != nil {
			return nil, err
		}
		// A poll (a Test or probe) that found nothing reads no clock and writes no record: it is
		// counted (LHT_Polls) and its time is the computation before the next call.
		enter, poll, fpoll := "\tuint64_t cpu = lht_enter();\n", "", ""
		if sh.nothing != "" {
			cond, err := expand(sh.nothing, c, false)
			if err != nil {
				return nil, err
			}
			fcond, err := expand(sh.nothing, c, true)
			if err != nil {
				return nil, err
			}
			poll = "\tif (" + cond + ") {\n\t\tlht.polls++;\n\t\treturn rc;\n\t}\n" + enter
			fpoll = "\tif (" + fcond + ") {\n\t\tlht.polls++;\n\t\treturn;\n\t}\n" + enter
			enter = ""
		}
		fmt.Fprintf(&b, "int %s(%s)\n{\n\tif (!lht.on)\n\t\treturn P%s(%s);\n%s%s\tint rc = P%s(%s);\n%s%s\tlht_exit();\n\treturn rc;\n}\n\n",
			c.name, strings.Join(cargs, ", "), c.name, strings.Join(args, ", "), enter, indent(pre), c.name, strings.Join(args, ", "), poll, indent(post))

		lower := strings.ToLower(c.name)
		fpre, err := expand(sh.pre, c, true)
		if err != nil {
			return nil, err
		}
		fpost, err := expand(sh.post, c, true)
		if err != nil {
			return nil, err
		}
		fa := strings.Join(append(fargs, "MPI_Fint *ierr"), ", ")
		fc := strings.Join(append(fcall, "ierr"), ", ")
		fmt.Fprintf(&b, "#ifdef LHT_FORTRAN\nextern void p%s_(%s) __attribute__((weak));\n", lower, fa)
		fmt.Fprintf(&b, "void %s_(%s)\n{\n\tif (!lht.on) {\n\t\tp%s_(%s);\n\t\treturn;\n\t}\n%s%s\tp%s_(%s);\n%s%s\tlht_exit();\n}\n",
			lower, fa, lower, fc, enter, indent(fpre), lower, fc, fpoll, indent(fpost))
		for _, alias := range []string{lower, lower + "__", strings.ToUpper(c.name), "ompi_" + strings.TrimPrefix(lower, "mpi_") + "_f"} {
			fmt.Fprintf(&b, "void %s(%s) __attribute__((alias(\"%s_\")));\n", alias, fa, lower)
		}
		b.WriteString("#endif\n\n")
	}
	return b.Bytes(), nil
}

// firstGenerated is the first function number of calls.txt's functions: lht.h's own come first.
const firstGenerated = 6

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.Trim(s, "\n"), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		b.WriteString("\t" + l + "\n")
	}
	return b.String()
}
