package javalang

import (
	"math"
	"testing"
)

func TestFloat(t *testing.T) {
	for _, c := range []struct {
		f    float64
		bits int
		want string
	}{
		{1, 64, "1.0"}, {0.25, 64, "0.25"}, {1e10, 64, "1.0E10"}, {1.5e-5, 64, "1.5E-5"},
		{1e7, 64, "1.0E7"}, {9999999, 64, "9999999.0"}, {0.001, 64, "0.001"}, {0.000999, 64, "9.99E-4"},
		{1.5, 32, "1.5"}, {float64(float32(0.1)), 32, "0.1"}, {0, 64, "0.0"}, {math.Copysign(0, -1), 64, "-0.0"},
		{math.NaN(), 64, "NaN"}, {math.Inf(1), 32, "Infinity"}, {math.Inf(-1), 64, "-Infinity"}, {-2.5e-10, 64, "-2.5E-10"},
	} {
		if got := Float(c.f, c.bits); got != c.want {
			t.Errorf("Float(%v, %d) = %q, want %q", c.f, c.bits, got, c.want)
		}
	}
}
