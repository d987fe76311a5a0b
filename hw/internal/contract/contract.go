// Package contract reads hw/contract.json and renders the files made from it.
package contract

// contract reads hw/contract.json, the one description of lhs_top's hardware contract
// (register map, host address regions, LH entry layout), and renders the files made from it:
// hw/contract_gen.go, rtl/lhs_regs.vh, verilator/lhs_regs.h and the generated tables of
// docs/design.md. hw/gen writes them (go generate ./hw); hw's tests check they are current.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Source is the contract, relative to the repository root.
const Source = "hw/contract.json"

// The generated files, relative to the repository root.
const (
	GoFile      = "hw/contract_gen.go"
	VerilogFile = "rtl/lhs_regs.vh"
	CFile       = "verilator/lhs_regs.h"
	DocsFile    = "docs/design.md"
)

// Contract is hw/contract.json.
type Contract struct {
	About       string     `json:"about"`
	MemAW       int        `json:"memAW"`
	ResetCycles int        `json:"resetCycles"`
	Regions     []Region   `json:"regions"`
	Entry       Entry      `json:"entry"`
	Registers   []Register `json:"registers"`
}

// Region is a range of host bus addresses.
type Region struct {
	Name string `json:"name"`
	Base Num    `json:"base"`
	Last Num    `json:"last"`
	Doc  string `json:"doc"`
}

// Entry is the LH entry layout.
type Entry struct {
	Bytes     int          `json:"bytes"`
	InlineMax int          `json:"inlineMax"`
	Fields    []EntryField `json:"fields"`
}

// EntryField is a byte range of an entry.
type EntryField struct {
	Name   string `json:"name"`
	Offset int    `json:"offset"`
	Bytes  int    `json:"bytes"`
	Doc    string `json:"doc"`
	Prefix string `json:"prefix"`
	Bits   []Bit  `json:"bits"`
}

// Register is one host register.
type Register struct {
	Name   string  `json:"name"`
	Offset Num     `json:"offset"`
	Access string  `json:"access"`
	Reset  *Num    `json:"reset"` // "build" when set by the build's parameters; absent for W
	Max    *Num    `json:"max"`   // largest value a write may set, when the contract bounds it
	Doc    string  `json:"doc"`
	Prefix string  `json:"prefix"` // names of bits and values: PREFIX_NAME (Go PrefixName)
	All    bool    `json:"all"`    // also name the mask of every bit (PrefixAll)
	Bits   []Bit   `json:"bits"`
	Fields []Field `json:"fields"`
	Values []Value `json:"values"`
}

// Bit is a one-bit flag.
type Bit struct {
	Name string `json:"name"`
	Bit  int    `json:"bit"`
	Doc  string `json:"doc"`
}

// Field is a multi-bit field of a register.
type Field struct {
	Name   string  `json:"name"`
	LSB    int     `json:"lsb"`
	Width  int     `json:"width"`
	Doc    string  `json:"doc"`
	Prefix string  `json:"prefix"`
	Values []Value `json:"values"`
}

// Value is a named value of a register or field.
type Value struct {
	Name  string `json:"name"`
	Value uint32 `json:"value"`
	Doc   string `json:"doc"`
}

// Num is a 32-bit number written as a JSON number or as a string in Go syntax ("0x0C"),
// whose spelling the generated files keep. The string "build" marks a value the build's
// parameters set.
type Num struct {
	V     uint32
	Text  string
	Build bool
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *Num) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	if s == "build" {
		*n = Num{Text: s, Build: true}
		return nil
	}
	v, err := strconv.ParseUint(s, 0, 32)
	if err != nil {
		return fmt.Errorf("number %s: %w", b, err)
	}
	*n = Num{V: uint32(v), Text: s}
	return nil
}

// Load reads and checks a contract.
func Load(data []byte) (*Contract, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var c Contract
	if err := d.Decode(&c); err != nil {
		return nil, fmt.Errorf("contract: %w", err)
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("contract: %w", err)
	}
	return &c, nil
}

var accesses = map[string]bool{"R": true, "RW": true, "RW*": true, "W": true, "R/W1C": true}

func (c *Contract) check() error {
	if c.MemAW < 28 || c.MemAW > 32 {
		return fmt.Errorf("memAW %d outside 28..32", c.MemAW)
	}
	if c.ResetCycles < 1 {
		return fmt.Errorf("resetCycles %d", c.ResetCycles)
	}
	names := map[string]string{} // Go name -> what it names
	name := func(goName, what string) error {
		if prev, dup := names[goName]; dup {
			return fmt.Errorf("%s and %s both make the name %s", prev, what, goName)
		}
		names[goName] = what
		return nil
	}
	if c.reg("ID") == nil || c.reg("ID").Reset == nil || c.reg("ID").Reset.Build {
		return fmt.Errorf("no ID register with a fixed value")
	}
	if c.region("REGISTERS") == nil {
		return fmt.Errorf("no REGISTERS region")
	}
	for i, r := range c.Regions {
		if r.Last.V < r.Base.V {
			return fmt.Errorf("region %s ends before it starts", r.Name)
		}
		if i > 0 && r.Base.V <= c.Regions[i-1].Last.V {
			return fmt.Errorf("region %s overlaps or precedes %s", r.Name, c.Regions[i-1].Name)
		}
		if err := name(Camel(r.Name)+"Base", "region "+r.Name); err != nil {
			return err
		}
	}
	e := c.Entry
	off := 0
	for _, f := range e.Fields {
		if f.Offset != off || f.Bytes < 1 {
			return fmt.Errorf("entry field %s at byte %d (%d bytes): fields must tile the entry", f.Name, f.Offset, f.Bytes)
		}
		off += f.Bytes
		if err := name("Entry"+Camel(f.Name)+"Offset", "entry field "+f.Name); err != nil {
			return err
		}
		if err := checkBits("entry field "+f.Name, f.Prefix, f.Bits, 8*f.Bytes, name); err != nil {
			return err
		}
	}
	if off != e.Bytes {
		return fmt.Errorf("entry fields cover %d bytes, entry has %d", off, e.Bytes)
	}
	if e.InlineMax < 1 || e.InlineMax > e.Bytes {
		return fmt.Errorf("inlineMax %d", e.InlineMax)
	}
	if err := c.checkDocs(); err != nil {
		return err
	}
	regsLast := c.region("REGISTERS").Last.V
	for i, r := range c.Registers {
		what := "register " + r.Name
		if r.Offset.V%4 != 0 || r.Offset.V > regsLast {
			return fmt.Errorf("%s: offset %#x not a word in the register region", what, r.Offset.V)
		}
		if i > 0 && r.Offset.V <= c.Registers[i-1].Offset.V {
			return fmt.Errorf("%s: registers must be in increasing offset order", what)
		}
		if !accesses[r.Access] {
			return fmt.Errorf("%s: access %q (want R, RW, RW*, W or R/W1C)", what, r.Access)
		}
		if (r.Reset == nil) != (r.Access == "W") {
			return fmt.Errorf("%s: a reset value is required exactly when the register can be read", what)
		}
		if err := name("Reg"+Camel(r.Name), what); err != nil {
			return err
		}
		if r.writable() {
			if err := name(r.goName()+"Reset", what); err != nil {
				return err
			}
		}
		if r.Max != nil {
			if err := name(r.goName()+"Max", what); err != nil {
				return err
			}
		}
		if (len(r.Bits) > 0 || len(r.Values) > 0) && r.Prefix == "" {
			return fmt.Errorf("%s: bits and values need a prefix", what)
		}
		if err := checkBits(what, r.Prefix, r.Bits, 32, name); err != nil {
			return err
		}
		if r.All && len(r.Bits) == 0 {
			return fmt.Errorf("%s: all without bits", what)
		}
		if r.All {
			if err := name(Camel(r.Prefix)+"All", what); err != nil {
				return err
			}
		}
		if err := checkValues(what, r.Prefix, r.Values, 32, name); err != nil {
			return err
		}
		var used uint64
		for _, b := range r.Bits {
			used |= 1 << b.Bit
		}
		for _, f := range r.Fields {
			if f.Width < 1 || f.LSB < 0 || f.LSB+f.Width > 32 {
				return fmt.Errorf("%s: field %s bits [%d +: %d]", what, f.Name, f.LSB, f.Width)
			}
			m := (uint64(1)<<f.Width - 1) << f.LSB
			if used&m != 0 {
				return fmt.Errorf("%s: field %s overlaps another", what, f.Name)
			}
			used |= m
			fp := Camel(r.fieldPrefix()) + Camel(f.Name)
			if err := name(fp+"Shift", what+" field "+f.Name); err != nil {
				return err
			}
			if err := name(fp+"Mask", what+" field "+f.Name); err != nil {
				return err
			}
			if len(f.Values) > 0 && f.Prefix == "" {
				return fmt.Errorf("%s: field %s: values need a prefix", what, f.Name)
			}
			if err := checkValues(what+" field "+f.Name, f.Prefix, f.Values, f.Width, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkDocs refuses descriptions that would break a Markdown table row or a comment line.
func (c *Contract) checkDocs() error {
	var docs []string
	bits := func(bs []Bit) {
		for _, b := range bs {
			docs = append(docs, b.Doc)
		}
	}
	values := func(vs []Value) {
		for _, v := range vs {
			docs = append(docs, v.Doc)
		}
	}
	for _, r := range c.Regions {
		docs = append(docs, r.Doc)
	}
	for _, f := range c.Entry.Fields {
		docs = append(docs, f.Doc)
		bits(f.Bits)
	}
	for _, r := range c.Registers {
		docs = append(docs, r.Doc)
		bits(r.Bits)
		values(r.Values)
		for _, f := range r.Fields {
			docs = append(docs, f.Doc)
			values(f.Values)
		}
	}
	for _, d := range docs {
		if strings.ContainsAny(d, "|\n") {
			return fmt.Errorf("description %q holds '|' or a line break", d)
		}
	}
	return nil
}

func checkBits(what, prefix string, bits []Bit, width int, name func(string, string) error) error {
	seen := map[int]bool{}
	for _, b := range bits {
		if b.Bit < 0 || b.Bit >= width || seen[b.Bit] {
			return fmt.Errorf("%s: bit %s at %d", what, b.Name, b.Bit)
		}
		seen[b.Bit] = true
		if err := name(Camel(prefix)+Camel(b.Name), what+" bit "+b.Name); err != nil {
			return err
		}
	}
	return nil
}

func checkValues(what, prefix string, values []Value, width int, name func(string, string) error) error {
	for _, v := range values {
		if width < 32 && v.Value >= 1<<width {
			return fmt.Errorf("%s: value %s = %d does not fit %d bits", what, v.Name, v.Value, width)
		}
		if err := name(Camel(prefix)+Camel(v.Name), what+" value "+v.Name); err != nil {
			return err
		}
	}
	return nil
}

func (c *Contract) reg(name string) *Register {
	for i := range c.Registers {
		if c.Registers[i].Name == name {
			return &c.Registers[i]
		}
	}
	return nil
}

func (c *Contract) region(name string) *Region {
	for i := range c.Regions {
		if c.Regions[i].Name == name {
			return &c.Regions[i]
		}
	}
	return nil
}

// writable registers (RW, RW*) get a named reset value: the default the host may change.
func (r Register) writable() bool { return r.Access == "RW" || r.Access == "RW*" }

// fieldPrefix starts the names of the register's fields: its prefix, or its name.
func (r Register) fieldPrefix() string {
	if r.Prefix != "" {
		return r.Prefix
	}
	return r.Name
}

// goName is the register's name in Go without the Reg prefix (SplitPos).
func (r Register) goName() string { return Camel(r.Name) }

// acronyms keep their capitals in Go names.
var acronyms = map[string]bool{"ID": true, "LH": true, "LHS": true, "VL": true, "VS": true}

// Camel turns an upper snake name into a Go one: LH_PROD -> LHProd, LHS_ON -> LHSOn.
func Camel(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(s, "_") {
		if w == "" {
			continue
		}
		if acronyms[w] {
			b.WriteString(w)
			continue
		}
		b.WriteString(w[:1])
		b.WriteString(strings.ToLower(w[1:]))
	}
	return b.String()
}

// File is one generated file.
type File struct {
	Path string // relative to the repository root
	Data []byte
}

// Generate reads the contract (and docs/design.md, whose generated tables it replaces) under
// root and returns every generated file's content.
func Generate(root string) ([]File, error) {
	data, err := os.ReadFile(filepath.Join(root, Source))
	if err != nil {
		return nil, err
	}
	c, err := Load(data)
	if err != nil {
		return nil, err
	}
	goSrc, err := c.Go()
	if err != nil {
		return nil, err
	}
	docs, err := os.ReadFile(filepath.Join(root, DocsFile))
	if err != nil {
		return nil, err
	}
	newDocs, err := c.Docs(docs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", DocsFile, err)
	}
	return []File{
		{GoFile, goSrc},
		{VerilogFile, c.Verilog()},
		{CFile, c.C()},
		{DocsFile, newDocs},
	}, nil
}

// Stale returns the generated files under root whose content differs from what the contract
// makes (missing files included).
func Stale(root string) ([]string, error) {
	files, err := Generate(root)
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, f := range files {
		have, err := os.ReadFile(filepath.Join(root, f.Path))
		if err != nil || !bytes.Equal(have, f.Data) {
			stale = append(stale, f.Path)
		}
	}
	return stale, nil
}

// FindRoot walks up from dir to the directory holding go.mod and hw/contract.json.
func FindRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(d, Source)); err == nil {
				return d, nil
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("contract: no repository root (go.mod and %s) above %s", Source, dir)
		}
		d = parent
	}
}
