package gemm

import (
	"iter"
	"math/bits"
)

// The matrix C of a launch is cut into tiles of tileRows×tileCols, numbered
// row by row; a group's share is a run of consecutive tiles. A tile is large
// enough for the packing to cost little next to the micro-kernel (each packed
// value is used tileRows or tileCols times) and small enough that a 512×512
// C still gives every core of a small machine a few tiles.
const (
	tileRows = 128
	tileCols = 256
)

// Block is a rectangle of C: rows [I0, I1) and columns [J0, J1).
type Block struct {
	I0, I1, J0, J1 int
}

// Blocks returns the rectangles of an m×n matrix that part number part of
// parts owns. The parts together cover every element exactly once, whatever
// parts is; when there are more parts than tiles some own nothing. Adjacent
// tiles of one row of tiles come back as one wider block. A part outside
// [0, parts), or negative sizes, own nothing.
func Blocks(part, parts, m, n int) iter.Seq[Block] {
	return func(yield func(Block) bool) {
		if part < 0 || part >= parts || m <= 0 || n <= 0 {
			return
		}
		tilesDown, tilesAcross := ceilDiv(m, tileRows), ceilDiv(n, tileCols)
		total := uint64(tilesDown) * uint64(tilesAcross) // ≤ m·n: no overflow
		lo, hi := share(uint64(part), uint64(parts), total), share(uint64(part)+1, uint64(parts), total)
		for t := lo; t < hi; {
			row, col := t/uint64(tilesAcross), t%uint64(tilesAcross)
			last := min(hi, (row+1)*uint64(tilesAcross)) // the run ends with the row of tiles
			b := Block{
				I0: int(row) * tileRows, I1: min(m, (int(row)+1)*tileRows),
				J0: int(col) * tileCols, J1: min(n, int(col+last-t)*tileCols),
			}
			if !yield(b) {
				return
			}
			t = last
		}
	}
}

// share returns ceil(part·total/parts), the first tile of part part, in
// 128-bit arithmetic (part·total may not fit in 64 bits).
func share(part, parts, total uint64) uint64 {
	hi, lo := bits.Mul64(part, total)
	lo, carry := bits.Add64(lo, parts-1, 0)
	hi += carry
	q, _ := bits.Div64(hi, lo, parts) // part ≤ parts: hi < parts
	return q
}

func ceilDiv(x, y int) int { return (x + y - 1) / y }
