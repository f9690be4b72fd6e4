package ddm

import (
	"image/color"
	"testing"
)

// The picture carries the map and a legend: every kind's colour appears,
// drawn as a legend swatch even when the map holds no such block.
func TestPictureHasLegend(t *testing.T) {
	m := &HeapMap{Pieces: []Piece{{Start: 0x1000, UnitSize: 8, Units: 300, Blocks: []Block{
		{Kind: KindObject, Solidity: SolidHard, Units: 100}, {Kind: KindObject, Solidity: SolidFree, Units: 200}}}}}
	img := m.Picture("test heap")
	if img.Bounds().Dx() < 512 || img.Bounds().Dy() < 200 {
		t.Fatalf("picture %v: want at least the 2× map and a legend", img.Bounds())
	}
	seen := map[color.RGBA]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			seen[img.RGBAAt(x, y)] = true
		}
	}
	for _, e := range Legend() {
		if !seen[e.Color] {
			t.Errorf("legend colour of %q (%v) not drawn", e.Label, e.Color)
		}
	}
}
