package area

import (
	"strings"
	"testing"
)

// FuzzParseStat feeds the Yosys report parsers anything: a stat -json report and the select
// counts (split at the first NUL byte). They either refuse the input with an error or return
// counts that are never negative, and the resource count built from them never panics.
// Replay a failure: go test -run 'FuzzParseStat/<file>' ./area/ (the input is saved under
// testdata/fuzz/FuzzParseStat).
func FuzzParseStat(f *testing.F) {
	f.Add([]byte(`{"creator":"Yosys 0.23","modules":{"\\lhs_top":{"num_cells":3,"num_memories":0,"num_cells_by_type":{"LUT4":2,"FDRE":1}}},"design":{"num_cells":3,"num_memories":0,"num_cells_by_type":{"LUT4":2,"FDRE":1,"MUXCY":4}}}` + "\x00carry_with_lut\n3 objects.\npair_drivers\n2 objects.\n"))
	f.Add([]byte(`{"modules":{"\\m":{"num_cells_by_type":{"RAMB16_S36_S36":4,"RAM16X1D":2}}}}`))
	f.Add([]byte(`{"design":{"num_cells_by_type":{"LUT6":-1}}}` + "\x00x\n99999999999999999999999 objects.\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		statPart, countPart, _ := strings.Cut(string(data), "\x00")
		s, err := ParseStat([]byte(statPart))
		if err == nil {
			for typ, n := range s.Cells {
				if n < 0 {
					t.Fatalf("ParseStat accepted %d cells of %q\ninput %q", n, typ, data)
				}
			}
			if s.Memories < 0 {
				t.Fatalf("ParseStat accepted %d memories\ninput %q", s.Memories, data)
			}
		}
		counts, cerr := ParseCounts([]byte(countPart))
		if cerr == nil {
			for k, n := range counts {
				if n < 0 {
					t.Fatalf("ParseCounts accepted %d for %q\ninput %q", n, k, data)
				}
			}
		}
		if err == nil && cerr == nil {
			for _, fam := range []Family{XC2VP, XC7} {
				r := Count(fam, s, counts, nil)
				if r.LUTs < 0 || r.FFs < 0 || r.BRAMs < 0 || r.Slices < 0 {
					t.Fatalf("negative resources %+v\ninput %q", r, data)
				}
			}
		}
	})
}

// TestParseStatRefusesBadCounts: a report with a negative or absurd count, or a select count
// that overflows, is refused instead of read as a wrong area.
func TestParseStatRefusesBadCounts(t *testing.T) {
	for _, in := range []string{
		`{"design":{"num_cells_by_type":{"LUT6":-1}}}`,
		`{"design":{"num_memories":-2,"num_cells_by_type":{}}}`,
		`{"modules":{"\\m":{"num_cells_by_type":{"RAM64X1D":9223372036854775807}}}}`,
	} {
		if _, err := ParseStat([]byte(in)); err == nil {
			t.Errorf("ParseStat accepted %s", in)
		}
	}
	if _, err := ParseCounts([]byte("pair_drivers\n99999999999999999999999 objects.\n")); err == nil {
		t.Error("ParseCounts accepted a count that overflows int")
	}
}
