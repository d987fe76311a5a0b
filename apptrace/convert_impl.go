package apptrace

import (
	"fmt"
	"io"
)

func convert(w io.Writer, t *Trace, opt Options) (Stats, error) {
	return Stats{}, fmt.Errorf("apptrace: convert: not written yet")
}
