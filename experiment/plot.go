package experiment

import (
	"fmt"
	"path/filepath"
	"strings"
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
