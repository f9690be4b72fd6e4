package javalang

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// ErrUnknownName says a name means no local variable, field, static field or
// loaded class; lookups that may go on with another reading of the name test
// for it with errors.Is.
var ErrUnknownName = errors.New("no local variable, field or static field of that name")

// Float writes f as Double.toString (bits 64) or Float.toString (bits 32)
// does: the shortest representation, ".0" for integral values, E notation
// outside [1e-3, 1e7), NaN and ±Infinity.
func Float(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	if a := math.Abs(f); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, bits)
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	exp = strings.TrimPrefix(exp, "+")
	if strings.HasPrefix(exp, "-") {
		exp = "-" + strings.TrimLeft(exp[1:], "0")
	} else {
		exp = strings.TrimLeft(exp, "0")
	}
	return mant + "E" + exp
}
