package kotlin

import (
	"strconv"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/lang"
)

// Values as a Kotlin program prints them (their toString), written from
// their fields: no code runs in the VM, so they show in hovers, in a thread
// stopped by pause and on ART alike.

// tuple writes Pair's and Triple's toString: "(a, b)", "(a, b, c)".
func tuple(fs []lang.PrintedField) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.Text
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// rangeText writes IntRange's, LongRange's and CharRange's toString.
func rangeText(fs []lang.PrintedField) string {
	if len(fs) != 2 {
		return ""
	}
	return fs[0].Text + ".." + fs[1].Text
}

// progressionText writes IntProgression's (Long…, Char…) toString:
// "1..9 step 2", or "10 downTo 1 step 3" for a negative step.
func progressionText(fs []lang.PrintedField) string {
	if len(fs) != 3 {
		return ""
	}
	step, err := strconv.ParseInt(fs[2].Text, 10, 64)
	if err != nil {
		return ""
	}
	if step > 0 {
		return fs[0].Text + ".." + fs[1].Text + " step " + fs[2].Text
	}
	return fs[0].Text + " downTo " + fs[1].Text + " step " + strconv.FormatInt(-step, 10)
}

// unsigned rewrites a field's text (a UInt or ULong kept in an int or a
// long field) as Kotlin prints the unsigned value.
func unsigned(fs []lang.PrintedField, bits int, n int) []lang.PrintedField {
	out := append([]lang.PrintedField(nil), fs...)
	for i := 0; i < n && i < len(out); i++ {
		v, err := strconv.ParseInt(out[i].Text, 10, 64)
		if err != nil {
			continue
		}
		if bits == 32 {
			out[i].Text = strconv.FormatUint(uint64(uint32(int32(v))), 10)
		} else {
			out[i].Text = strconv.FormatUint(uint64(v), 10)
		}
	}
	return out
}

// unsignedForms are UIntRange's, ULongRange's and their progressions'
// forms: first and last unsigned, the step signed.
func unsignedForms(bits int) (rng, prog *lang.ValueForm) {
	return &lang.ValueForm{Fields: []string{"first", "last"}, Text: func(fs []lang.PrintedField) string { return rangeText(unsigned(fs, bits, 2)) }},
		&lang.ValueForm{Fields: []string{"first", "last", "step"}, Text: func(fs []lang.PrintedField) string { return progressionText(unsigned(fs, bits, 2)) }}
}

var (
	uintRangeForm, uintProgressionForm   = unsignedForms(32)
	ulongRangeForm, ulongProgressionForm = unsignedForms(64)
)

var (
	pairForm        = &lang.ValueForm{Fields: []string{"first", "second"}, Text: tuple}
	tripleForm      = &lang.ValueForm{Fields: []string{"first", "second", "third"}, Text: tuple}
	rangeForm       = &lang.ValueForm{Fields: []string{"first", "last"}, Text: rangeText}
	progressionForm = &lang.ValueForm{Fields: []string{"first", "last", "step"}, Text: progressionText}
)

// stdlibForms are the standard library's classes Kotlin prints its own way.
var stdlibForms = map[string]*lang.ValueForm{
	"Lkotlin/Unit;":                    {Fields: []string{}, Text: func([]lang.PrintedField) string { return "kotlin.Unit" }},
	"Lkotlin/Pair;":                    pairForm,
	"Lkotlin/Triple;":                  tripleForm,
	"Lkotlin/ranges/IntRange;":         rangeForm,
	"Lkotlin/ranges/LongRange;":        rangeForm,
	"Lkotlin/ranges/CharRange;":        rangeForm,
	"Lkotlin/ranges/IntProgression;":   progressionForm,
	"Lkotlin/ranges/LongProgression;":  progressionForm,
	"Lkotlin/ranges/CharProgression;":  progressionForm,
	"Lkotlin/ranges/UIntRange;":        uintRangeForm,
	"Lkotlin/ranges/UIntProgression;":  uintProgressionForm,
	"Lkotlin/ranges/ULongRange;":       ulongRangeForm,
	"Lkotlin/ranges/ULongProgression;": ulongProgressionForm,
	"Lkotlin/Result$Failure;":          {Fields: []string{"exception"}, Text: func(fs []lang.PrintedField) string { return "Failure(" + fs[0].Text + ")" }},
	"Lkotlin/Result;": {Fields: []string{"value"}, Text: func(fs []lang.PrintedField) string {
		// A boxed Result (a value class): its value, or a Failure.
		if len(fs) != 1 {
			return ""
		}
		if fs[0].Sig == "Lkotlin/Result$Failure;" {
			return fs[0].Text
		}
		return "Success(" + fs[0].Text + ")"
	}},
}

// ValueForm gives the standard library's Unit, Pair, Triple, ranges and
// progressions and a boxed Result (by signature), and data classes (by
// their methods: kotlinc gives a data class componentN for each
// primary-constructor property, copy, toString, hashCode and equals; its
// toString prints those properties, which are its first instance fields,
// in order).
func (language) ValueForm(sig string, methods []string) *lang.ValueForm {
	if f, ok := stdlibForms[sig]; ok {
		return f
	}
	if methods == nil {
		return nil
	}
	n := dataComponents(methods)
	if n == 0 {
		return nil
	}
	name := sig[strings.LastIndexAny(sig, "/$")+1 : len(sig)-1]
	return &lang.ValueForm{Leading: n, Text: func(fs []lang.PrintedField) string {
		parts := make([]string, len(fs))
		for i, f := range fs {
			parts[i] = f.Name + "=" + f.Text
		}
		return name + "(" + strings.Join(parts, ", ") + ")"
	}}
}

// dataComponents is the number of primary-constructor properties of a data
// class with these declared methods, 0 when they are not a data class's.
func dataComponents(methods []string) int {
	have := map[string]bool{}
	for _, m := range methods {
		have[m] = true
	}
	for _, m := range []string{"copy", "toString", "hashCode", "equals", "component1"} {
		if !have[m] {
			return 0
		}
	}
	n := 1
	for have["component"+strconv.Itoa(n+1)] {
		n++
	}
	return n
}
