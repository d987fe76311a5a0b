package experiment

import (
	"slices"
	"strings"
	"testing"
)

// TestParseNodeSet: the one node-list reader takes numbers and ranges in the order written,
// keeps repeats for the commands that refuse them, and refuses what is not a node with the
// item named.
func TestParseNodeSet(t *testing.T) {
	set, err := ParseNodeSet(" 4-6, 1 ,5,", 9)
	if err != nil {
		t.Fatal(err)
	}
	if got := set.Nodes(); !slices.Equal(got, []int{4, 5, 6, 1, 5}) {
		t.Errorf("nodes %v", got)
	}
	if set.UpTo() != 7 || !set.Has(1) || set.Has(2) || !set.Has(6) || set.Has(7) || set.Size() != 5 {
		t.Errorf("UpTo %d, Has(1,2,6,7) %v %v %v %v, Size %d", set.UpTo(), set.Has(1), set.Has(2), set.Has(6), set.Has(7), set.Size())
	}
	if empty, err := ParseNodeSet("", 9); err != nil || empty.Nodes() == nil || len(empty.Nodes()) != 0 {
		t.Errorf("empty list: %v %v", empty.Nodes(), err)
	}
	for s, want := range map[string]string{
		"x":                    "want node numbers 0 to 9",
		"1,x":                  "x: want node numbers",
		"10":                   "want node numbers 0 to 9",
		"-1":                   "want node numbers",
		"3-1":                  "want a range from 3 to at most 9",
		"2-10":                 "want a range from 2",
		"1-2-3":                "want a range",
		"0,1e3":                "1e3: want node numbers",
		"99999999999999999999": "want node numbers",
	} {
		if _, err := ParseNodeSet(s, 9); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error with %q", s, err, want)
		}
	}
}
