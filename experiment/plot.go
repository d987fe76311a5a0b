package experiment

import (
	"fmt"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
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

// logXPlot is a plot with a logarithmic X axis and the legend at the top left: the form of
// the sweeps' figures.
func logXPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = x, y
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	return p
}

// curves collects points into named curves, in the order each name first comes.
type curves struct {
	names  []string
	dashed map[string]bool
	pts    map[string]plotter.XYs
}

// add puts (x, y) on the curve name; dashed draws that curve dashed.
func (c *curves) add(name string, dashed bool, x, y float64) {
	if c.pts == nil {
		c.pts, c.dashed = map[string]plotter.XYs{}, map[string]bool{}
	}
	if _, ok := c.pts[name]; !ok {
		c.names = append(c.names, name)
	}
	c.pts[name] = append(c.pts[name], plotter.XY{X: x, Y: y})
	c.dashed[name] = dashed
}

// draw adds every curve to p as lines with markers, a color and a shape each, in the
// legend, and saves p with a grid at 8x6 inches.
func (c *curves) draw(p *plot.Plot, file string) error {
	for i, name := range c.names {
		l, sc, err := plotter.NewLinePoints(c.pts[name])
		if err != nil {
			return err
		}
		l.Color, sc.Color, sc.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
		if c.dashed[name] {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l, sc)
		p.Legend.Add(name, l, sc)
	}
	p.Add(plotter.NewGrid())
	return p.Save(8*vg.Inch, 6*vg.Inch, file)
}
