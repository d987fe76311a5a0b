package contract

import (
	"strings"
	"testing"
)

func TestCamel(t *testing.T) {
	for in, want := range map[string]string{
		"LH_PROD": "LHProd", "LHS_ON": "LHSOn", "ID": "ID", "VEC_OP": "VecOp", "VL": "VL",
		"TAIL_WPTR": "TailWptr", "MISMATCH_COUNT": "MismatchCount", "READ_WINDOW": "ReadWindow",
	} {
		if got := Camel(in); got != want {
			t.Errorf("Camel(%q) = %q, want %q", in, got, want)
		}
	}
}

const minimal = `{"memAW": 29, "resetCycles": 4,
 "regions": [{"name": "REGISTERS", "base": "0x0", "last": "0xFF", "doc": "registers"}],
 "entry": {"bytes": 4, "inlineMax": 2, "fields": [{"name": "DATA", "offset": 0, "bytes": 4, "doc": "d"}]},
 "registers": [%s]}`

func TestLoadRefuses(t *testing.T) {
	id := `{"name": "ID", "offset": "0x00", "access": "R", "reset": "0x1", "doc": "id"}`
	if _, err := Load([]byte(strings.Replace(minimal, "%s", id, 1))); err != nil {
		t.Fatalf("minimal contract: %v", err)
	}
	for name, regs := range map[string]string{
		"no ID":        `{"name": "X", "offset": "0x00", "access": "R", "reset": "0", "doc": ""}`,
		"misaligned":   id + `, {"name": "X", "offset": "0x06", "access": "R", "reset": "0", "doc": ""}`,
		"out of order": `{"name": "X", "offset": "0x08", "access": "R", "reset": "0", "doc": ""}, ` + id,
		"bad access":   id + `, {"name": "X", "offset": "0x04", "access": "RO", "reset": "0", "doc": ""}`,
		"W with reset": id + `, {"name": "X", "offset": "0x04", "access": "W", "reset": "0", "doc": ""}`,
		"no reset":     id + `, {"name": "X", "offset": "0x04", "access": "RW", "doc": ""}`,
		"pipe in doc":  id + `, {"name": "X", "offset": "0x04", "access": "R", "reset": "0", "doc": "a | b"}`,
		"same name":    id + `, {"name": "ID", "offset": "0x04", "access": "R", "reset": "0", "doc": ""}`,
		"bits clash": id + `, {"name": "X", "offset": "0x04", "access": "R", "reset": "0", "doc": "", "prefix": "X",
			"bits": [{"name": "A", "bit": 0}, {"name": "B", "bit": 0}]}`,
		"field overlaps bit": id + `, {"name": "X", "offset": "0x04", "access": "R", "reset": "0", "doc": "", "prefix": "X",
			"bits": [{"name": "A", "bit": 3}], "fields": [{"name": "F", "lsb": 2, "width": 4, "doc": ""}]}`,
		"value too wide": id + `, {"name": "X", "offset": "0x04", "access": "R", "reset": "0", "doc": "",
			"fields": [{"name": "F", "lsb": 0, "width": 2, "doc": "", "prefix": "V", "values": [{"name": "A", "value": 4}]}]}`,
		"unknown key": id + `, {"name": "X", "offset": "0x04", "access": "R", "reset": "0", "doc": "", "colour": "red"}`,
	} {
		if _, err := Load([]byte(strings.Replace(minimal, "%s", regs, 1))); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestDocsNeedsMarkers(t *testing.T) {
	c, err := Load([]byte(strings.Replace(minimal, "%s", `{"name": "ID", "offset": "0x00", "access": "R", "reset": "0x1", "doc": "id"}`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Docs([]byte("no markers\n")); err == nil {
		t.Error("docs without markers accepted")
	}
	doc := "a\n" + RegmapBegin + "\nold\n" + RegmapEnd + "\nb\n" + EntryBegin + "\n" + EntryEnd + "\n"
	out, err := c.Docs([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "old") || !strings.Contains(string(out), "| 0x00 | `ID` | R | 0x1 | id |") {
		t.Errorf("docs:\n%s", out)
	}
	again, _ := c.Docs(out)
	if string(again) != string(out) {
		t.Error("splicing twice changes the docs")
	}
}
