package dap

import (
	"context"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
)

// lazyShower is a language whose delegated properties and locals
// (x$delegate) may hold a lazy value, and where it keeps it (Kotlin:
// jdwp/lang/kotlin).
type lazyShower interface {
	LazyValueField(classSig string) string
	LazyUninitialized(sig string) bool
}

// unwrapLazy shows a lazy delegate (a field or local whose class-file name
// ends in $delegate, holding one of the language's lazy implementations) as
// the value it holds once its initializer ran, read from its field with no
// code run (hovers and ART alike); evalName is then the expression of that
// value. An uninitialized lazy, and anything else, is left as it is.
func (d *debuggee) unwrapLazy(ctx context.Context, l lang.Language, raw string, n named, evalName string) named {
	ls, ok := l.(lazyShower)
	if !ok || !strings.HasSuffix(raw, "$delegate") || !n.v.Tag.IsObject() || n.v.IsNull() {
		return n
	}
	obj := jdwp.ObjectID(n.v.Bits)
	class, sig, err := d.vm.ObjectType(ctx, obj)
	if err != nil {
		return n
	}
	field := ls.LazyValueField(sig)
	if field == "" {
		return n
	}
	chain, err := d.vm.FieldChain(ctx, class)
	if err != nil {
		return n
	}
	for _, f := range chain {
		if f.Name != field || f.ModBits&jdwp.AccStatic != 0 {
			continue
		}
		vals, err := d.vm.ReadFields(ctx, obj, []jdwp.FieldID{f.ID})
		if err != nil || len(vals) != 1 {
			return n
		}
		v := vals[0]
		if v.Tag.IsObject() && !v.IsNull() {
			if _, vsig, err := d.vm.ObjectType(ctx, jdwp.ObjectID(v.Bits)); err != nil || ls.LazyUninitialized(vsig) {
				return n
			}
		}
		return named{n.name, evalName, v}
	}
	return n
}
