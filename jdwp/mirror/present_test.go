package mirror

import (
	"math"
	"testing"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

func TestPrimitive(t *testing.T) {
	for _, c := range []struct {
		v    jdwp.Value
		want string
	}{
		{jdwp.IntValue(-42), "-42"},
		{jdwp.LongValue(1 << 40), "1099511627776"},
		{jdwp.BoolValue(true), "true"},
		{jdwp.CharValue('q'), "'q'"},
		{jdwp.CharValue('\''), `'\''`},
		{jdwp.CharValue('\n'), `'\n'`},
		{jdwp.DoubleValue(1), "1.0"},
		{jdwp.DoubleValue(0.25), "0.25"},
		{jdwp.DoubleValue(1e10), "1.0E10"},
		{jdwp.DoubleValue(1.5e-5), "1.5E-5"},
		{jdwp.FloatValue(1.5), "1.5"},
		{jdwp.DoubleValue(math.NaN()), "NaN"},
		{jdwp.DoubleValue(math.Inf(-1)), "-Infinity"},
	} {
		if got := Primitive(c.v); got != c.want {
			t.Errorf("Primitive(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestNames(t *testing.T) {
	for simple, want := range map[string]string{"Logical$Status": "Status", "Logical$Op$1": "Op", "Status": "Status", "A$B$12": "B"} {
		if got := innerName(simple); got != want {
			t.Errorf("innerName(%s) = %s, want %s", simple, got, want)
		}
	}
	if !Map.Logical() || !Collection.Logical() || Enum.Logical() || Map.String() != "map" {
		t.Error("view properties")
	}
}
