package ddm

import (
	"image"
	"image/color"
	"image/png"
	"io"
)

// The DDMS heap view palette: heap expansion area grey, free black, and one
// colour per kind.
var (
	colorGap  = color.RGBA{192, 192, 192, 255}
	colorFree = color.RGBA{0, 0, 0, 255}
	kindColor = [8]color.RGBA{
		KindObject:  {0, 0, 255, 255},     // data object
		KindClass:   {0, 255, 0, 255},     // class object
		KindArray1:  {255, 0, 0, 255},     // byte[], boolean[]
		KindArray2:  {255, 128, 0, 255},   // short[], char[]
		KindArray4:  {255, 255, 0, 255},   // Object[], int[], float[]
		KindArray8:  {255, 128, 128, 255}, // long[], double[]
		KindUnknown: {255, 0, 255, 255},   // unknown object
		KindNative:  {64, 64, 64, 255},    // non-Java object
	}
)

// BlockColor is the colour of a block in the rendered map: black when free,
// otherwise the DDMS colour of its kind, washed towards white the weaker its
// reachability (hard = full colour; soft, weak, phantom, finalizable and
// about-to-be-swept progressively paler).
func BlockColor(b Block) color.RGBA {
	if b.Free() {
		return colorFree
	}
	c := kindColor[b.Kind&7]
	wash := uint32(b.Solidity&7-1) * 24 // 0 for hard, up to 144 of 255
	mix := func(v uint8) uint8 { return uint8((uint32(v)*(255-wash) + 255*wash) / 255) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 255}
}

// RenderOptions tunes [HeapMap.Image].
type RenderOptions struct {
	Width         int    // pixels per row; 0 means 256
	UnitsPerPixel uint64 // allocation units per pixel; 0 picks the smallest that keeps the image under MaxRows
	MaxRows       int    // 0 means 2048
}

// Image draws m like the DDMS linear heap view: one pixel per allocation unit
// (or per UnitsPerPixel units, coloured by the block at the pixel's first
// unit), left to right and top to bottom. Each piece starts on a new row and
// non-touching pieces are separated by a grey row, the colour DDMS uses for
// the heap expansion area.
func (m *HeapMap) Image(opt RenderOptions) *image.RGBA {
	w := opt.Width
	if w <= 0 {
		w = 256
	}
	maxRows := opt.MaxRows
	if maxRows <= 0 {
		maxRows = 2048
	}
	rowsFor := func(upp uint64) int {
		rows := 0
		for i, p := range m.Pieces {
			if i > 0 {
				rows++ // separator
			}
			px := (p.Units + upp - 1) / upp
			rows += int((px + uint64(w) - 1) / uint64(w))
		}
		return max(rows, 1)
	}
	upp := opt.UnitsPerPixel
	if upp == 0 {
		// Doubling stops once one pixel covers the largest piece: beyond that
		// only the piece count (one row each, plus separators) sets the height.
		var largest uint64
		for _, p := range m.Pieces {
			largest = max(largest, p.Units)
		}
		upp = 1
		for rowsFor(upp) > maxRows && upp < largest {
			upp *= 2
		}
	}
	img := image.NewRGBA(image.Rect(0, 0, w, rowsFor(upp)))
	fill := func(y int, c color.RGBA) {
		for x := range w {
			img.SetRGBA(x, y, c)
		}
	}
	y := 0
	for i, p := range m.Pieces {
		if i > 0 {
			fill(y, colorGap)
			y++
		}
		px, unit, bi, blockEnd := 0, uint64(0), 0, uint64(0)
		if len(p.Blocks) > 0 {
			blockEnd = uint64(p.Blocks[0].Units)
		}
		for ; unit < p.Units && len(p.Blocks) > 0; unit += upp {
			for bi < len(p.Blocks)-1 && unit >= blockEnd {
				bi++
				blockEnd += uint64(p.Blocks[bi].Units)
			}
			img.SetRGBA(px%w, y+px/w, BlockColor(p.Blocks[bi]))
			px++
		}
		rows := (px + w - 1) / w
		for x := px; x < rows*w; x++ {
			img.SetRGBA(x%w, y+x/w, colorGap)
		}
		y += rows
	}
	if len(m.Pieces) == 0 {
		fill(0, colorGap)
	}
	return img
}

// WritePNG encodes m.Image(opt) as PNG.
func (m *HeapMap) WritePNG(w io.Writer, opt RenderOptions) error {
	return png.Encode(w, m.Image(opt))
}

// LegendEntry names one colour of the rendered map.
type LegendEntry struct {
	Label string
	Color color.RGBA
}

// Legend lists the colours Image uses for hard-reachable blocks, free space
// and gaps, in DDMS order (the gap first): [LegendTable]'s rows.
func Legend() []LegendEntry {
	rows := legendRows()
	gap := rows[len(rows)-1]
	out := []LegendEntry{{gap.label, gap.c}}
	for _, r := range rows[:len(rows)-1] {
		out = append(out, LegendEntry{r.label, r.c})
	}
	return out
}
