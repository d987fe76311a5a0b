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

// NewPlot is a plot with linear axes and its legend at the top left (where Curves.Draw
// moves it out, right of the data; panels side by side keep it there).
func NewPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.Legend.Top, p.Legend.Left = true, true
	return p
}

// LogXPlot is a plot with a logarithmic X axis (readableLogTicks): the form of the sweeps'
// figures. Curves.Draw puts its legend outside the data, at the right.
func LogXPlot(title, x, y string) *plot.Plot {
	p := NewPlot(title, x, y)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = readableLogTicks{}
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
	return writeCanvas(c, file)
}

// Style is how a curve is drawn.
type Style int

const (
	Marked Style = iota // a line with a marker at each point
	Dashed              // the same, the line dashed
	Plain               // a line only (a curve of many points)
	Bound               // a dashed line only: a bound or a closed form to read the others against
	Points              // markers only: a paper's figures beside a simulated curve
)

// Curves collects points into named curves, in the order each name first comes. Each curve
// has its own colour and marker (seriesColor, seriesShape) unless Like gives it another's.
type Curves struct {
	names []string
	style map[string]Style
	like  map[string]string
	pts   map[string]plotter.XYs
}

// Add puts (x, y) on the curve name, Marked, or Dashed when dashed.
func (c *Curves) Add(name string, dashed bool, x, y float64) {
	s := Marked
	if dashed {
		s = Dashed
	}
	c.AddStyled(name, s, x, y)
}

// AddStyled puts (x, y) on the curve name, drawn in style s.
func (c *Curves) AddStyled(name string, s Style, x, y float64) {
	if c.pts == nil {
		c.pts, c.style, c.like = map[string]plotter.XYs{}, map[string]Style{}, map[string]string{}
	}
	if _, ok := c.pts[name]; !ok {
		c.names = append(c.names, name)
	}
	c.pts[name] = append(c.pts[name], plotter.XY{X: x, Y: y})
	c.style[name] = s
}

// Like draws the curve name in the colour and marker of the curve as (a paper's points
// beside the simulated curve they compare with).
func (c *Curves) Like(name, as string) {
	if c.like == nil {
		c.like = map[string]string{}
	}
	c.like[name] = as
}

// AddTo adds every curve to p (colour, marker and dashes by its style) and to its legend,
// and a grid.
func (c *Curves) AddTo(p *plot.Plot) error {
	index := map[string]int{}
	for _, name := range c.names {
		if _, ok := c.like[name]; !ok {
			index[name] = len(index)
		}
	}
	for _, name := range c.names {
		i, ok := index[c.like[name]]
		if !ok {
			i = index[name]
		}
		st := c.style[name]
		var things []plot.Thumbnailer
		if st != Points {
			l, err := plotter.NewLine(c.pts[name])
			if err != nil {
				return err
			}
			l.Color = seriesColor(i)
			if st == Dashed || st == Bound {
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			}
			p.Add(l)
			things = append(things, l)
		}
		if st == Marked || st == Dashed || st == Points {
			sc, err := plotter.NewScatter(c.pts[name])
			if err != nil {
				return err
			}
			sc.Color, sc.Shape = seriesColor(i), seriesShape(i)
			p.Add(sc)
			things = append(things, sc)
		}
		p.Legend.Add(name, things...)
	}
	p.Add(plotter.NewGrid())
	return nil
}

// Draw adds every curve to p (AddTo) and saves p at 8x6 inches, its legend right of the data.
func (c *Curves) Draw(p *plot.Plot, file string) error {
	if err := c.AddTo(p); err != nil {
		return err
	}
	return savePlot(p, 8*vg.Inch, 6*vg.Inch, file)
}

// SavePanels saves plots side by side on one w x h canvas, each with its legend inside it, a
// margin all round, in the format of file's extension.
func SavePanels(file string, w, h vg.Length, panels ...*plot.Plot) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(file)), ".")
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return err
	}
	m := vg.Points(10)
	tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadX: vg.Centimeter, PadTop: m, PadBottom: m, PadLeft: m, PadRight: m}
	for i, cv := range plot.Align([][]*plot.Plot{panels}, tiles, draw.New(c))[0] {
		panels[i].Draw(cv)
	}
	return writeCanvas(c, file)
}

// writeCanvas writes c to file.
func writeCanvas(c vg.CanvasWriterTo, file string) error {
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

// vgCanvasProbe is a canvas to measure text on.
func vgCanvasProbe(w, h vg.Length) vg.CanvasSizer {
	c, _ := draw.NewFormattedCanvas(w, h, "svg")
	return c
}
