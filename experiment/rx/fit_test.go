package rx

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFitLine(t *testing.T) {
	// Points on y = 3x + 5, unevenly spaced.
	s, c := fitSearchLine([]int{0, 1, 2, 10}, []float64{5, 8, 11, 35})
	require.InDelta(t, 3, s, 1e-9)
	require.InDelta(t, 5, c, 1e-9)

	// Scatter symmetric about y = 2x - 1: the fit is that line.
	s, c = fitSearchLine([]int{0, 1, 2, 3}, []float64{-1 + 0.5, 1 - 0.5, 3 - 0.5, 5 + 0.5})
	require.InDelta(t, 2, s, 1e-9)
	require.InDelta(t, -1, c, 1e-9)
}

func TestFitLineDegenerate(t *testing.T) {
	for name, c := range map[string]struct {
		xs []int
		ys []float64
	}{
		"one point":        {[]int{4}, []float64{1}},
		"lengths differ":   {[]int{0, 1, 2}, []float64{1, 2}},
		"all x the same":   {[]int{3, 3, 3}, []float64{1, 2, 3}},
		"no points at all": {nil, nil},
	} {
		s, i := fitSearchLine(c.xs, c.ys)
		require.True(t, math.IsNaN(s) && math.IsNaN(i), "%s: got %v, %v", name, s, i)
	}
}
