package area

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// HashRTL is the SHA-256 of the Verilog a sweep reads: rtl/*.v and the headers they include
// (rtl/*.vh), each as its name, a NUL, its length and its bytes, in name order. files are
// the names, relative to root. summary.json records it, so that a change to the RTL that
// synth-reports/ has not caught up with fails a test (TestSynthReportsMatchRTL) instead of
// leaving Table 1 stale. Content, not modification time: a fresh clone gives every file the
// time of the checkout.
func HashRTL(root string) (hash string, files []string, err error) {
	for _, pat := range []string{"*.v", "*.vh"} {
		m, err := filepath.Glob(filepath.Join(root, "rtl", pat))
		if err != nil {
			return "", nil, err
		}
		for _, p := range m {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return "", nil, err
			}
			files = append(files, filepath.ToSlash(rel))
		}
	}
	if len(files) == 0 {
		return "", nil, fmt.Errorf("area: no Verilog in %s", filepath.Join(root, "rtl"))
	}
	sort.Strings(files)
	h := sha256.New()
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return "", nil, err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil)), files, nil
}
