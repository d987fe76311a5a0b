package apptrace

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lhsim/lhsim/netsim/goal"
)

// TestLogGOPSimAccepts: LogGOPSim's txt2bin reads the converted schedules and LogGOPSim ends
// them when lhsim's LogGOPS model does (--stdsort: LogGOPSim's order of operations freed
// together), for every collective algorithm on 5 and 8 ranks and the rules' traces. It needs
// LogGOPSim built from github.com/spcl/LogGOPSim (TXT2BIN and LOGGOPSIM, as for
// scripts/goal-compare.sh) and skips without them.
func TestLogGOPSimAccepts(t *testing.T) {
	t2b, lgs := os.Getenv("TXT2BIN"), os.Getenv("LOGGOPSIM")
	if t2b == "" || lgs == "" {
		t.Skip("set TXT2BIN and LOGGOPSIM to LogGOPSim's binaries (scripts/goal-compare.sh says how) to compare with LogGOPSim")
	}
	traces := map[string]*Trace{}
	for coll := Barrier; coll < numColl; coll++ {
		for _, alg := range Algorithms(coll) {
			for _, n := range []int{5, 8} {
				tr := collTrace(n, coll, 3000)
				tr.Ranks[0][0].CPU = 5000
				traces[fmt.Sprintf("%s-%s-%d", coll, alg, n)] = tr
			}
		}
	}
	dir := t.TempDir()
	for name, tr := range traces {
		coll, _ := ParseColl(strings.SplitN(name, "-", 2)[0])
		alg := strings.SplitN(name, "-", 3)[1]
		var b bytes.Buffer
		if _, err := Convert(&b, tr, Options{Collectives: map[Coll]string{coll: alg}}); err != nil {
			t.Fatal(err)
		}
		s, err := goal.Parse(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		res, err := goal.RunLogGP(s, goal.DefaultParams(), goal.Options{StdSort: true})
		if err != nil {
			t.Fatal(err)
		}
		txt, bin := filepath.Join(dir, name+".goal"), filepath.Join(dir, name+".bin")
		os.WriteFile(txt, b.Bytes(), 0o644)
		if out, err := exec.Command(t2b, "-i", txt, "-o", bin).CombinedOutput(); err != nil {
			t.Fatalf("%s: txt2bin: %v\n%s", name, err, out)
		}
		out, err := exec.Command(lgs, "-f", bin).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: LogGOPSim: %v\n%s", name, err, out)
		}
		var end uint64
		for _, l := range strings.Split(string(out), "\n") {
			if f := strings.Fields(l); len(f) == 3 && f[0] == "Host" {
				v, _ := strconv.ParseUint(f[2], 10, 64)
				end = max(end, v)
			}
		}
		if end*1000 != res.End {
			t.Errorf("%s: LogGOPSim ends at %d ns, lhsim at %d ps", name, end, res.End)
		}
	}
}
