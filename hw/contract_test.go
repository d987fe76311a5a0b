package hw_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/lhsim/lhsim/hw"
	"github.com/lhsim/lhsim/hw/internal/contract"
)

// Every file made from contract.json must be what the generator makes of it now.
func TestGeneratedFilesCurrent(t *testing.T) {
	root, err := contract.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	files, err := contract.Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		have, err := os.ReadFile(filepath.Join(root, f.Path))
		if err != nil || !bytes.Equal(have, f.Data) {
			t.Errorf("%s: stale: run go generate ./hw", f.Path)
		}
	}
}

// The generated Go table agrees with the generated constants.
func TestRegisters(t *testing.T) {
	seen := map[uint32]string{}
	for i, r := range hw.Registers {
		if prev, dup := seen[r.Offset]; dup {
			t.Errorf("%s and %s share offset %#x", prev, r.Name, r.Offset)
		}
		seen[r.Offset] = r.Name
		if i > 0 && r.Offset <= hw.Registers[i-1].Offset {
			t.Errorf("%s out of offset order", r.Name)
		}
		if r.Offset%4 != 0 || r.Offset >= hw.ReadWindowBase {
			t.Errorf("%s at %#x", r.Name, r.Offset)
		}
	}
	if hw.Registers[0].Name != "ID" || hw.Registers[0].Reset != hw.ID {
		t.Errorf("first register %+v, want ID = %#x", hw.Registers[0], hw.ID)
	}
	if hw.EntryLenOffset+2 != hw.EntryFlagsOffset || hw.EntryTailPtrOffset+4 != hw.EntryBytes || hw.InlineMax != hw.EntryLenOffset {
		t.Error("entry layout")
	}
}

func TestTailUnits(t *testing.T) {
	for _, c := range []struct{ size, split, want uint32 }{
		{57, 48, 1}, {64, 48, 1}, {65, 48, 2}, {200, 48, 10}, {57, 16, 3}, {65535, 16, 4095},
	} {
		if got := hw.TailUnits(c.size, c.split); got != c.want {
			t.Errorf("TailUnits(%d, %d) = %d, want %d", c.size, c.split, got, c.want)
		}
	}
	for _, c := range []struct{ size, want uint32 }{{0, 1}, {1, 1}, {16, 1}, {17, 2}, {65535, 4096}} {
		if got := hw.RingUnits(c.size); got != c.want {
			t.Errorf("RingUnits(%d) = %d, want %d", c.size, got, c.want)
		}
	}
}
