package hw

// TailUnits is the tail-ring space, in 16-byte units, that a split message (LHS on,
// InlineMax < size <= MAX_MSG) reserves at its first beat: ceil((size - splitPos)/16), from
// the size field whatever arrives (docs/design.md, "LHS rule").
func TailUnits(size, splitPos uint32) uint32 { return (size - splitPos + 15) / 16 }

// RingUnits is the tail-ring space, in 16-byte units, that a message reserves with LHS off:
// the whole message, max(1, ceil(size/16)) (a size field of 0 still takes one unit).
func RingUnits(size uint32) uint32 { return max(1, (size+15)/16) }

// Reserved is the tail-ring space, in 16-byte units, that a message whose size field is size
// reserves at its first beat (docs/design.md, "LHS rule" and "Tail ring"): with LHS on, none
// for an inline message and TailUnits for a split one; with LHS off, RingUnits. A message over
// maxMsg, or one that could never fit the ring of ringUnits, is too long and reserves none.
func Reserved(size uint32, lhsOn bool, splitPos, maxMsg, ringUnits uint32) uint32 {
	var u uint32
	switch {
	case lhsOn && size <= InlineMax:
		return 0
	case lhsOn:
		u = TailUnits(size, splitPos)
	default:
		u = RingUnits(size)
	}
	if size > maxMsg || u > ringUnits {
		return 0
	}
	return u
}
