package experiment

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// blankEdges fails if anything is drawn within 2 pixels of the image's edge: a title,
// label or legend that runs off the canvas is cut there.
func blankEdges(t *testing.T, file string) image.Image {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	inked := func(x, y int) bool {
		r, g, bl, a := img.At(x, y).RGBA()
		return a > 0x1000 && (r < 0xe000 || g < 0xe000 || bl < 0xe000)
	}
	for x := b.Min.X; x < b.Max.X; x++ {
		for _, y := range []int{b.Min.Y, b.Min.Y + 1, b.Max.Y - 2, b.Max.Y - 1} {
			if inked(x, y) {
				t.Fatalf("%s: drawn at the edge (%d, %d) of %v: something is clipped", file, x, y, b)
			}
		}
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for _, x := range []int{b.Min.X, b.Min.X + 1, b.Max.X - 2, b.Max.X - 1} {
			if inked(x, y) {
				t.Fatalf("%s: drawn at the edge (%d, %d) of %v: something is clipped", file, x, y, b)
			}
		}
	}
	return img
}

// checkPlot draws a figure as PNG and as SVG; the PNG, and the SVG as rsvg-convert renders
// it, have nothing at their edges, and the legend is drawn right of the data (the last
// eighth of the picture has ink).
func checkPlot(t *testing.T, name string, write func(string) error) {
	t.Helper()
	dir := t.TempDir()
	pngFile, svg := filepath.Join(dir, name+".png"), filepath.Join(dir, name+".svg")
	if err := write(pngFile); err != nil {
		t.Fatal(err)
	}
	if err := write(svg); err != nil {
		t.Fatal(err)
	}
	imgs := []string{pngFile}
	if rsvg, err := exec.LookPath("rsvg-convert"); err == nil {
		out := filepath.Join(dir, name+"-rsvg.png")
		if b, err := exec.Command(rsvg, "-o", out, svg).CombinedOutput(); err != nil {
			t.Fatalf("rsvg-convert %s: %v: %s", svg, err, b)
		}
		imgs = append(imgs, out)
	} else {
		t.Logf("no rsvg-convert (apt-get install librsvg2-bin): the SVG is not rendered")
	}
	for _, f := range imgs {
		img := blankEdges(t, f)
		b := img.Bounds()
		ink := false
		for x := b.Max.X - b.Dx()/8; x < b.Max.X && !ink; x++ {
			for y := b.Min.Y; y < b.Max.Y; y++ {
				if r, _, _, a := img.At(x, y).RGBA(); a > 0x1000 && r < 0x8000 {
					ink = true
					break
				}
			}
		}
		if !ink {
			t.Errorf("%s: no legend right of the data", f)
		}
	}
}

func TestPlotsReadable(t *testing.T) {
	cfg := DefaultBarrier()
	cfg.Topologies, cfg.Processes, cfg.NodeLatency = []string{"crossbar:16"}, []int{2, 4, 8, 16}, cfg.NodeLatency[2:3]
	br, err := RunBarrier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkPlot(t, "barrier", br.WritePlot)
	// Twelve series with long names, the most curves.draw promises apart.
	p := logXPlot("twelve series over five decades, a long title that must fit its picture", "x, a long axis label", "y (µs)")
	logY(p)
	var c curves
	for i := range 12 {
		for x := 1.0; x <= 1e5; x *= 10 {
			c.add(fmt.Sprintf("series %d, %s", i, strings.Repeat("long ", i%3)), i%2 == 1, x, x*float64(i+1))
		}
	}
	checkPlot(t, "twelve", func(f string) error { return c.draw(p, f) })
}

// TestSeriesStyles: the first 12 series have 12 colours.
func TestSeriesStyles(t *testing.T) {
	seen := map[string]int{}
	for i := range 12 {
		k := fmt.Sprint(seriesColor(i))
		if j, ok := seen[k]; ok {
			t.Fatalf("series %d and %d share colour %s", j, i, k)
		}
		seen[k] = i
	}
}

// TestLogTicks: every decade is labelled; a range of under two decades also labels 2 and 5.
func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (readableLogTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	if got := fmt.Sprint(labels(1, 1e5)); got != "[1 10 100 1000 1e+04 1e+05]" {
		t.Errorf("1..1e5: %s", got)
	}
	if got := fmt.Sprint(labels(2, 60)); got != "[2 5 10 20 50]" {
		t.Errorf("2..60: %s", got)
	}
}

// TestEveryPlotReadable: every command's --plot goes through savePanels and passes
// checkPlot: incast, traffic (two panels), mbcf (two log-log panels, simulated lines and
// the paper's points), ib bandwidth and buffers, search and the matchers' Pareto figure.
// The runs are small; search's and the matchers' results are made up here (their runs
// need the RTL and Yosys reports; the figure's layout is what is checked).
func TestEveryPlotReadable(t *testing.T) {
	ic := smallIncast()
	ic.Messages = 5
	ir, err := RunIncast(ic)
	if err != nil {
		t.Fatal(err)
	}
	checkPlot(t, "incast", ir.WritePlot)
	tr, err := RunTraffic(quickTraffic("torus:4x4x4", "uniform", 0.1, 0.3, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	checkPlot(t, "traffic", tr.WritePlot)
	mc := DefaultMBCF()
	mc.Iterations, mc.Writes = 2, 32
	mr, err := RunMBCF(mc)
	if err != nil {
		t.Fatal(err)
	}
	checkPlot(t, "mbcf", mr.WritePlot)
	bc := DefaultIBBandwidth()
	bc.Chipsets, bc.Sizes, bc.RDMAMax = []string{"gc-le", "e7501"}, []int{64, 1024, 8192}, 65536
	br, err := RunIBBandwidth(bc)
	if err != nil {
		t.Fatal(err)
	}
	checkPlot(t, "ib-bandwidth", br.WritePlot)
	uc := DefaultIBBuffers()
	uc.Nodes, uc.Messages, uc.Depths, uc.RatesKps = []int{2, 64, 4096}, 20, []int{32}, []float64{60}
	ur, err := RunIBBuffers(uc)
	if err != nil {
		t.Fatal(err)
	}
	checkPlot(t, "ib-buffers", ur.WritePlot)
	sr := &SearchResult{Depths: []int{1, 10, 100, 1000}, PerMessageNs: map[string]float64{}, Series: map[string][]float64{}}
	for i, k := range []string{CurveNoLHS, CurveQsNet2, CurveLHSCold, CurveLHS} {
		sr.PerMessageNs[k] = float64(100 / (i + 1))
		for _, d := range sr.Depths {
			sr.Series[k] = append(sr.Series[k], float64(d*100/(i+1)))
		}
	}
	checkPlot(t, "search", sr.WritePlot)
	mr2 := &MatchersResult{Ranks: 64}
	for _, w := range []string{"allreduce.goal", "alltoall.goal"} {
		for i, m := range []string{"list", "bins:16", "alpu:64"} {
			c := MatchersCell{Workload: w, Matcher: m, EndUs: float64(100 - 10*i), Software: i < 2}
			if !c.Software {
				c.Area = &MatcherArea{XC2VPSlices: 900}
			}
			mr2.Cells = append(mr2.Cells, c)
		}
	}
	checkPlot(t, "matchers", mr2.WriteParetoPlot)
}
