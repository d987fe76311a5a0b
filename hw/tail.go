package hw

// TailUnits is the tail-ring space, in 16-byte units, that a split message (LHS on,
// InlineMax < size <= MAX_MSG) reserves at its first beat: ceil((size - splitPos)/16), from
// the size field whatever arrives (docs/design.md, "LHS rule").
func TailUnits(size, splitPos uint32) uint32 { return (size - splitPos + 15) / 16 }

// RingUnits is the tail-ring space, in 16-byte units, that a message reserves with LHS off:
// the whole message, max(1, ceil(size/16)) (a size field of 0 still takes one unit).
func RingUnits(size uint32) uint32 { return max(1, (size+15)/16) }
