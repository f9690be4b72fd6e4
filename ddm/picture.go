package ddm

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"strings"
)

// Picture draws m for people rather than for pixel-exact comparison: a
// title, the map at twice the scale of [HeapMap.Image] (256 units per row,
// each drawn 2×2), the totals, and a legend giving every colour its meaning
// and the bytes of that kind. Text is drawn with a built-in 5×7 font in
// capitals.
func (m *HeapMap) Picture(title string) *image.RGBA {
	const scale, pad = 2, 8
	mapImg := m.Image(RenderOptions{Width: 256, MaxRows: 400})
	t := m.Totals()
	lines := []string{title, fmt.Sprintf("%s in %d %s, %s free", humanBytes(t.Bytes), len(m.Pieces), plural(len(m.Pieces), "piece", "pieces"), humanBytes(t.Free.Bytes))}
	type entry struct {
		c     color.RGBA
		label string
	}
	var legend []entry
	for _, e := range Legend() {
		label := e.Label
		switch e.Label {
		case "free":
			label += " " + humanBytes(t.Free.Bytes)
		case "heap expansion area":
			label = "gap (between pieces)"
		default:
			for k := KindObject; k <= KindNative; k++ {
				if k.String() == e.Label {
					label += " " + humanBytes(t.ByKind[k].Bytes)
				}
			}
		}
		legend = append(legend, entry{e.Color, label})
	}
	legend = append(legend, entry{BlockColor(Block{Kind: KindObject, Solidity: SolidFinalize}), "paler: soft, weak, phantom reachable"})
	textW := 0
	for _, l := range lines {
		textW = max(textW, textWidth(l))
	}
	for _, e := range legend {
		textW = max(textW, 20+textWidth(e.label))
	}
	w := max(mapImg.Bounds().Dx()*scale, textW) + 2*pad
	h := pad + len(lines)*lineH + pad + mapImg.Bounds().Dy()*scale + pad + len(legend)*lineH + pad
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fillRect(img, img.Bounds(), color.RGBA{255, 255, 255, 255})
	ink := color.RGBA{0, 0, 0, 255}
	y := pad
	for _, l := range lines {
		drawText(img, pad, y, l, ink)
		y += lineH
	}
	y += pad
	mb := mapImg.Bounds()
	for my := mb.Min.Y; my < mb.Max.Y; my++ {
		for mx := mb.Min.X; mx < mb.Max.X; mx++ {
			fillRect(img, image.Rect(pad+mx*scale, y+my*scale, pad+(mx+1)*scale, y+(my+1)*scale), mapImg.RGBAAt(mx, my))
		}
	}
	y += mb.Dy()*scale + pad
	for _, e := range legend {
		fillRect(img, image.Rect(pad, y, pad+14, y+14), ink)
		fillRect(img, image.Rect(pad+1, y+1, pad+13, y+13), e.c)
		drawText(img, pad+20, y, e.label, ink)
		y += lineH
	}
	return img
}

// WritePicture encodes m.Picture(title) as PNG.
func (m *HeapMap) WritePicture(w io.Writer, title string) error {
	return png.Encode(w, m.Picture(title))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func humanBytes(b uint64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

func fillRect(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

// The font: 5×7 glyphs drawn at 2×, 12 pixels apart, lines 18 apart.
const (
	glyphScale = 2
	advance    = 6 * glyphScale
	lineH      = 9 * glyphScale
)

func textWidth(s string) int { return len([]rune(s)) * advance }

func drawText(img *image.RGBA, x, y int, s string, c color.RGBA) {
	for _, r := range strings.ToUpper(s) {
		g, ok := glyphs[r]
		if !ok {
			g = glyphs['?']
		}
		for row := range 7 {
			for col := range 5 {
				if g[row]>>(4-col)&1 != 0 {
					fillRect(img, image.Rect(x+col*glyphScale, y+row*glyphScale, x+(col+1)*glyphScale, y+(row+1)*glyphScale), c)
				}
			}
		}
		x += advance
	}
}

// glyphs are 5×7 bitmaps, one row per byte, the leftmost pixel in bit 4.
var glyphs = map[rune][7]uint8{
	'A': {14, 17, 17, 31, 17, 17, 17}, 'B': {30, 17, 17, 30, 17, 17, 30}, 'C': {14, 17, 16, 16, 16, 17, 14},
	'D': {30, 17, 17, 17, 17, 17, 30}, 'E': {31, 16, 16, 30, 16, 16, 31}, 'F': {31, 16, 16, 30, 16, 16, 16},
	'G': {14, 17, 16, 23, 17, 17, 15}, 'H': {17, 17, 17, 31, 17, 17, 17}, 'I': {14, 4, 4, 4, 4, 4, 14},
	'J': {7, 2, 2, 2, 2, 18, 12}, 'K': {17, 18, 20, 24, 20, 18, 17}, 'L': {16, 16, 16, 16, 16, 16, 31},
	'M': {17, 27, 21, 21, 17, 17, 17}, 'N': {17, 17, 25, 21, 19, 17, 17}, 'O': {14, 17, 17, 17, 17, 17, 14},
	'P': {30, 17, 17, 30, 16, 16, 16}, 'Q': {14, 17, 17, 17, 21, 18, 13}, 'R': {30, 17, 17, 30, 20, 18, 17},
	'S': {15, 16, 16, 14, 1, 1, 30}, 'T': {31, 4, 4, 4, 4, 4, 4}, 'U': {17, 17, 17, 17, 17, 17, 14},
	'V': {17, 17, 17, 17, 17, 10, 4}, 'W': {17, 17, 17, 21, 21, 21, 10}, 'X': {17, 17, 10, 4, 10, 17, 17},
	'Y': {17, 17, 10, 4, 4, 4, 4}, 'Z': {31, 1, 2, 4, 8, 16, 31},
	'0': {14, 17, 19, 21, 25, 17, 14}, '1': {4, 12, 4, 4, 4, 4, 14}, '2': {14, 17, 1, 2, 4, 8, 31},
	'3': {31, 2, 4, 2, 1, 17, 14}, '4': {2, 6, 10, 18, 31, 2, 2}, '5': {31, 16, 30, 1, 1, 17, 14},
	'6': {6, 8, 16, 30, 17, 17, 14}, '7': {31, 1, 2, 4, 8, 8, 8}, '8': {14, 17, 17, 14, 17, 17, 14},
	'9': {14, 17, 17, 15, 1, 2, 12},
	' ': {}, '.': {0, 0, 0, 0, 0, 12, 12}, ',': {0, 0, 0, 0, 12, 4, 8}, ':': {0, 12, 12, 0, 12, 12, 0},
	'-': {0, 0, 0, 31, 0, 0, 0}, '(': {2, 4, 8, 8, 8, 4, 2}, ')': {8, 4, 2, 2, 2, 4, 8},
	'/': {0, 1, 2, 4, 8, 16, 0}, '[': {14, 8, 8, 8, 8, 8, 14}, ']': {14, 2, 2, 2, 2, 2, 14},
	'%': {24, 25, 2, 4, 8, 19, 3}, '+': {0, 4, 4, 31, 4, 4, 0}, '=': {0, 0, 31, 0, 31, 0, 0},
	'_': {0, 0, 0, 0, 0, 0, 31}, '#': {10, 10, 31, 10, 31, 10, 10}, '*': {0, 4, 21, 14, 21, 4, 0},
	'?': {14, 17, 1, 2, 4, 0, 4}, '$': {4, 15, 20, 14, 5, 30, 4}, '@': {14, 17, 23, 21, 23, 16, 15},
}
