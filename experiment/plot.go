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

// logXPlot is a plot with a logarithmic X axis (readableLogTicks): the form of the sweeps'
// figures. curves.draw puts its legend outside the data, at the right.
func logXPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = readableLogTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	return p
}

// logY makes p's Y axis logarithmic (where one series dwarfs the others).
func logY(p *plot.Plot) {
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

// linearPlot is a plot with linear axes, its legend outside the data (savePanels).
func linearPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.Legend.Top, p.Legend.Left = true, true
	return p
}

// logXYPlot is logXPlot with a logarithmic Y axis too.
func logXYPlot(title, x, y string) *plot.Plot {
	p := logXPlot(title, x, y)
	logY(p)
	return p
}

// savePlot saves p at w x h with its legend outside the data, in a column at the right
// (the file is wider by the legend's width), in the format of file's extension.
func savePlot(p *plot.Plot, w, h vg.Length, file string) error {
	return savePanels([]*plot.Plot{p}, w, h, file)
}

// savePanels saves plots side by side, each w x h with its legend in a column at its
// right (the file is wider by the legends' widths), in the format of file's extension:
// every command's figure goes through here.
func savePanels(ps []*plot.Plot, w, h vg.Length, file string) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(file)), ".")
	pad := vg.Points(10)
	probe := draw.New(vgCanvasProbe(w, h))
	legs := make([]plot.Legend, len(ps))
	legW := make([]vg.Length, len(ps))
	total := vg.Length(0)
	for i, p := range ps {
		legs[i] = p.Legend
		p.Legend = plot.NewLegend()
		if r := legs[i].Rectangle(probe); r.Size().X > 0 {
			legW[i] = r.Size().X + 2*pad
		}
		total += w + legW[i]
	}
	c, err := draw.NewFormattedCanvas(total, h, format)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	// A margin all round: gonum puts the title's and the tick labels' ink on the canvas's
	// edge, where renderers cut it.
	m := vg.Points(6)
	x0 := vg.Length(0)
	for i, p := range ps {
		right := total - (x0 + w + legW[i])
		p.Draw(draw.Crop(dc, x0+m, -legW[i]-right, m, -m))
		if legW[i] > 0 {
			top := vg.Length(0)
			if p.Title.Text != "" {
				top = p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding + pad
			}
			leg := legs[i]
			leg.Top, leg.Left = true, true
			leg.Draw(draw.Crop(dc, x0+w+pad, -right-pad, 0, -top))
		}
		x0 += w + legW[i]
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

// How a curve is drawn.
const (
	styleMarked = iota // a line through marked points (a sweep's few points)
	styleLine          // a line alone (thousands of points, where marks would hide it)
	styleRef           // a dashed line alone (a bound, a closed form)
	stylePoints        // marks alone (a paper's figures)
)

// curves collects points into named curves, in the order each name first comes; curve i
// takes colour and shape i, unless given the index of another (a simulated line and the
// paper's points in one colour).
type curves struct {
	names  []string
	dashed map[string]bool
	pts    map[string]plotter.XYs
	style  map[string]int
	index  map[string]int
}

func (c *curves) curve(name string, style, index int) {
	if c.pts == nil {
		c.pts, c.dashed, c.style, c.index = map[string]plotter.XYs{}, map[string]bool{}, map[string]int{}, map[string]int{}
	}
	if _, ok := c.pts[name]; !ok {
		c.names = append(c.names, name)
		c.pts[name] = nil
		if index < 0 {
			index = len(c.names) - 1
		}
		c.index[name] = index
	}
	c.style[name] = style
}

// add puts (x, y) on the curve name, a marked line; dashed draws that curve dashed.
func (c *curves) add(name string, dashed bool, x, y float64) {
	c.curve(name, styleMarked, -1)
	c.pts[name] = append(c.pts[name], plotter.XY{X: x, Y: y})
	c.dashed[name] = dashed
}

// set makes pts the curve name, drawn in style, with the colour and shape of series index
// (-1: its own).
func (c *curves) set(name string, style, index int, pts plotter.XYs) {
	c.curve(name, style, index)
	c.pts[name] = pts
}

// addTo adds every curve to p, in the legend, with a grid.
func (c *curves) addTo(p *plot.Plot) error {
	for _, name := range c.names {
		i, pts := c.index[name], c.pts[name]
		if len(pts) == 0 {
			continue
		}
		switch c.style[name] {
		case styleMarked:
			l, sc, err := plotter.NewLinePoints(pts)
			if err != nil {
				return err
			}
			l.Color, sc.Color, sc.Shape = seriesColor(i), seriesColor(i), seriesShape(i)
			if c.dashed[name] {
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			}
			p.Add(l, sc)
			p.Legend.Add(name, l, sc)
		case styleLine, styleRef:
			l, err := plotter.NewLine(pts)
			if err != nil {
				return err
			}
			l.Color = seriesColor(i)
			l.Width = vg.Points(1.5)
			if c.style[name] == styleRef {
				l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			}
			p.Add(l)
			p.Legend.Add(name, l)
		case stylePoints:
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return err
			}
			sc.Color, sc.Shape = seriesColor(i), seriesShape(i)
			sc.Radius = vg.Points(3.5)
			p.Add(sc)
			p.Legend.Add(name, sc)
		}
	}
	p.Add(plotter.NewGrid())
	return nil
}

// draw adds every curve to p and saves it at 8x6 inches.
func (c *curves) draw(p *plot.Plot, file string) error {
	if err := c.addTo(p); err != nil {
		return err
	}
	return savePlot(p, 8*vg.Inch, 6*vg.Inch, file)
}

// vgCanvasProbe is a canvas to measure text on.
func vgCanvasProbe(w, h vg.Length) vg.CanvasSizer {
	c, _ := draw.NewFormattedCanvas(w, h, "svg")
	return c
}
