package area

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// HashRTL is the SHA-256 of the Verilog a sweep of designs tops reads: their DesignFiles (all
// rtl/*.v and rtl/*.vh when tops is empty), each as its name, a NUL, its length and its
// bytes, in name order. files are the names, relative to root. summary.json records it, so
// that a change to the RTL that synth-reports/ has not caught up with fails a test
// (TestSynthReportsMatchRTL) instead of leaving Table 1 stale. Content, not modification
// time: a fresh clone gives every file the time of the checkout.
func HashRTL(root string, tops ...string) (hash string, files []string, err error) {
	if len(tops) > 0 {
		if files, err = sources(root, tops); err != nil {
			return "", nil, err
		}
	}
	for _, pat := range []string{"*.v", "*.vh"} {
		if len(tops) > 0 {
			break
		}
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

// Tops are the designs jobs synthesize, each once, in the order they first come.
func Tops(jobs []Job) []string {
	var tops []string
	for _, j := range jobs {
		if !slices.Contains(tops, j.Top) {
			tops = append(tops, j.Top)
		}
	}
	return tops
}

// Tops are the designs the summary's reports synthesized.
func (s Summary) Tops() []string {
	jobs := make([]Job, len(s.Reports))
	for i, r := range s.Reports {
		jobs[i] = r.Job
	}
	return Tops(jobs)
}
