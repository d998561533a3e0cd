package gemm

import (
	"iter"
	"math/bits"
)

// The matrix C of a launch is cut into tiles, numbered row by row; a group's
// share is a run of consecutive tiles. Tiles start at minTileRows×minTileCols
// and double (rows first) up to maxTileRows×maxTileCols while C still has
// at least minTiles of them: large tiles pack less (each packed value of B is
// used by a tile's rows, of A by its columns, and every tile packs its own),
// and minTiles keeps a few tiles per core for balance on small machines. The
// tile size depends on m and n only, so every group of a launch sees the
// same split.
const (
	minTileRows = 128
	minTileCols = 256
	maxTileRows = 512
	maxTileCols = 1024
	minTiles    = 32
)

// tileSize returns the tiles an m×n matrix is cut into.
func tileSize(m, n int) (rows, cols int) {
	rows, cols = minTileRows, minTileCols
	count := func(r, c int) int { return ceilDiv(m, r) * ceilDiv(n, c) }
	for {
		switch {
		case rows <= cols/2 && rows < maxTileRows && count(2*rows, cols) >= minTiles:
			rows *= 2
		case cols < maxTileCols && count(rows, 2*cols) >= minTiles:
			cols *= 2
		case rows < maxTileRows && count(2*rows, cols) >= minTiles:
			rows *= 2
		default:
			return rows, cols
		}
	}
}

// Tiles returns how many tiles Blocks cuts an m×n matrix into: the most
// parts that all own something.
func Tiles(m, n int) int {
	if m <= 0 || n <= 0 {
		return 0
	}
	rows, cols := tileSize(m, n)
	return ceilDiv(m, rows) * ceilDiv(n, cols)
}

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
		tileRows, tileCols := tileSize(m, n)
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
