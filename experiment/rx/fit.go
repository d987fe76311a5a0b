package rx

import "math"

// fitSearchLine is the least-squares line through (x, y): slope and intercept. Both are NaN
// when there are fewer than two points, xs and ys differ in length, or all xs are equal.
func fitSearchLine(xs []int, ys []float64) (slope, intercept float64) {
	n := float64(len(xs))
	if len(xs) < 2 || len(xs) != len(ys) {
		return math.NaN(), math.NaN()
	}
	var sx, sy, sxx, sxy float64
	for i, x := range xs {
		fx := float64(x)
		sx += fx
		sy += ys[i]
		sxx += fx * fx
		sxy += fx * ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return math.NaN(), math.NaN()
	}
	slope = (n*sxy - sx*sy) / d
	return slope, (sy - slope*sx) / n
}
