package expr

import (
	"context"
	"strings"
	"testing"
)

// deepInput builds a deep or long expression from a shape and a count:
// nested parentheses, unary chains, left-associative operator chains,
// right-associative chains (assignments, ?:), member and index chains,
// casts, and a mix — with n up to far beyond every limit.
func deepInput(shape uint8, n uint32, unit string) string {
	n %= 400_000
	if unit == "" || len(unit) > 16 {
		unit = "1"
	}
	switch shape % 9 {
	case 0:
		return strings.Repeat("(", int(n)) + unit + strings.Repeat(")", int(n))
	case 1:
		return strings.Repeat("-", int(n)) + unit // "--" lexes as a decrement
	case 2:
		return strings.Repeat("- ", int(n)) + unit
	case 3:
		return strings.Repeat(unit+" + ", int(n)) + unit
	case 4:
		return strings.Repeat("x = ", int(n)) + unit
	case 5:
		return strings.Repeat("b ? "+unit+" : ", int(n)) + unit
	case 6:
		return "s" + strings.Repeat(".f", int(n))
	case 7:
		return strings.Repeat("(int) ", int(n)) + unit
	default:
		return strings.Repeat("!(", int(n)) + unit + strings.Repeat(" * 2)", int(n))
	}
}

// FuzzParseDeep: whatever the depth or length, Parse returns a tree or an
// error (never a panic or a stack overflow) within bounded memory; a tree
// it returns is within the limits, and evaluating it (against the fake
// frame) and printing it return too. Seeds: testdata/fuzz/FuzzParseDeep.
func FuzzParseDeep(f *testing.F) {
	for shape := range uint8(9) {
		f.Add(shape, uint32(10), "1")
		f.Add(shape, uint32(MaxDepth+1), "x")
		f.Add(shape, uint32(MaxTokens), "a.b")
		f.Add(shape, uint32(300_000), "1")
	}
	f.Fuzz(func(t *testing.T, shape uint8, n uint32, unit string) {
		src := deepInput(shape, n, unit)
		var node Node
		var err error
		bytes := allocated(func() { node, err = Parse(src) })
		if bytes > 64<<20 {
			t.Fatalf("parsing %d bytes (shape %d) allocated %d MB", len(src), shape%9, bytes>>20)
		}
		if err != nil {
			if len(err.Error()) > 1000 {
				t.Fatalf("a %d-byte error message", len(err.Error()))
			}
			return
		}
		if c := strings.Count(src, "("); c > MaxDepth*MaxTokens {
			t.Fatalf("%d parentheses parsed", c)
		}
		_ = node.String()
		_ = node.Pos()
		Eval(context.Background(), node, newFakeEnv())
	})
}
