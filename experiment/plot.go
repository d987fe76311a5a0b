package experiment

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CheckPlotFile reports a plot file name the experiments' WritePlot would refuse (its kind
// comes from its extension), so that a command can say so before the experiment runs.
func CheckPlotFile(file string) error {
	ext := strings.ToLower(filepath.Ext(file))
	if ext != ".svg" && ext != ".png" {
		return fmt.Errorf("plot file %q: want .svg or .png", file)
	}
	return nil
}

// LogXPlot is a plot with a logarithmic X axis (readableLogTicks): the form of the sweeps'
// figures. Curves.Draw puts its legend outside the data, at the right.
func LogXPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = readableLogTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	return p
}

// LogY makes p's Y axis logarithmic (where one series dwarfs the others).
func LogY(p *plot.Plot) {
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = readableLogTicks{}
}

// readableLogTicks labels every decade in plain numbers (0.1, 1, 10, 1000, 1e+06), and 2
// and 5 in each decade too where the axis spans less than two decades; the other integers
// times a power of ten are unlabelled ticks.
type readableLogTicks struct{}

func (readableLogTicks) Ticks(min, max float64) []plot.Tick {
	if min <= 0 || max <= 0 || max < min {
		return nil
	}
	lo, hi := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	few := hi-lo <= 2
	var out []plot.Tick
	for e := lo; e <= hi; e++ {
		d := math.Pow(10, e)
		for k := 1.0; k <= 9; k++ {
			v := k * d
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if k == 1 || few && (k == 2 || k == 5) {
				t.Label = strconv.FormatFloat(v, 'g', 4, 64)
			}
			out = append(out, t)
		}
	}
	return out
}

// seriesColors are 12 colours told apart on screen and in print (matplotlib's tab10, black
// and a dark purple); seriesColor and seriesShape give series i its own pair.
var seriesColors = []color.RGBA{
	{0x1f, 0x77, 0xb4, 255}, {0xff, 0x7f, 0x0e, 255}, {0x2c, 0xa0, 0x2c, 255}, {0xd6, 0x27, 0x28, 255},
	{0x94, 0x67, 0xbd, 255}, {0x8c, 0x56, 0x4b, 255}, {0xe3, 0x77, 0xc2, 255}, {0x7f, 0x7f, 0x7f, 255},
	{0xbc, 0xbd, 0x22, 255}, {0x17, 0xbe, 0xcf, 255}, {0x00, 0x00, 0x00, 255}, {0x5e, 0x1f, 0x6e, 255},
}

func seriesColor(i int) color.Color      { return seriesColors[i%len(seriesColors)] }
func seriesShape(i int) draw.GlyphDrawer { return plotutil.Shape(i) }

// savePlot saves p at w x h with its legend outside the data, in a column at the right
// (the file is wider by the legend's width), in the format of file's extension.
func savePlot(p *plot.Plot, w, h vg.Length, file string) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(file)), ".")
	leg := p.Legend
	p.Legend = plot.NewLegend()
	pad := vg.Points(10)
	var legW vg.Length
	probe := draw.New(vgCanvasProbe(w, h))
	if r := leg.Rectangle(probe); r.Size().X > 0 {
		legW = r.Size().X + 2*pad
	}
	c, err := draw.NewFormattedCanvas(w+legW, h, format)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	// A margin all round: gonum puts the title's and the tick labels' ink on the canvas's
	// edge, where renderers cut it.
	m := vg.Points(6)
	p.Draw(draw.Crop(dc, m, -legW, m, -m))
	if legW > 0 {
		top := vg.Length(0)
		if p.Title.Text != "" {
			top = p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding + pad
		}
		leg.Top, leg.Left = true, true
		leg.Draw(draw.Crop(dc, w+pad, -pad, 0, -top))
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Curves collects points into named curves, in the order each name first comes.
type Curves struct {
	names  []string
	dashed map[string]bool
	pts    map[string]plotter.XYs
}

// Add puts (x, y) on the curve name; dashed draws that curve dashed.
func (c *Curves) Add(name string, dashed bool, x, y float64) {
	if c.pts == nil {
		c.pts, c.dashed = map[string]plotter.XYs{}, map[string]bool{}
	}
	if _, ok := c.pts[name]; !ok {
		c.names = append(c.names, name)
	}
	c.pts[name] = append(c.pts[name], plotter.XY{X: x, Y: y})
	c.dashed[name] = dashed
}

// Draw adds every curve to p as lines with markers, a color and a shape each, in the
// legend, and saves p with a grid at 8x6 inches.
func (c *Curves) Draw(p *plot.Plot, file string) error {
	for i, name := range c.names {
		l, sc, err := plotter.NewLinePoints(c.pts[name])
		if err != nil {
			return err
		}
		l.Color, sc.Color, sc.Shape = seriesColor(i), seriesColor(i), seriesShape(i)
		if c.dashed[name] {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l, sc)
		p.Legend.Add(name, l, sc)
	}
	p.Add(plotter.NewGrid())
	return savePlot(p, 8*vg.Inch, 6*vg.Inch, file)
}

// vgCanvasProbe is a canvas to measure text on.
func vgCanvasProbe(w, h vg.Length) vg.CanvasSizer {
	c, _ := draw.NewFormattedCanvas(w, h, "svg")
	return c
}
