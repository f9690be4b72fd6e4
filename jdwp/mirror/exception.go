package mirror

import (
	"context"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// ExceptionText returns an exception's class name and detail message (its
// detailMessage field, read without running a method).
func (m *VM) ExceptionText(ctx context.Context, exc jdwp.ObjectID) (string, string) {
	c, sig, err := m.ObjectType(ctx, exc)
	if err != nil {
		return "exception", ""
	}
	name := javalang.TypeName(sig)
	chain, err := m.FieldChain(ctx, c)
	if err != nil {
		return name, ""
	}
	for _, f := range chain {
		if f.Name != "detailMessage" || f.ModBits&jdwp.AccStatic != 0 {
			continue
		}
		vals, err := m.ReadFields(ctx, exc, []jdwp.FieldID{f.ID})
		if err != nil || len(vals) != 1 || vals[0].Tag != jdwp.TagString || vals[0].Object() == 0 {
			return name, ""
		}
		msg, err := m.String(ctx, vals[0].Object())
		if err != nil {
			return name, ""
		}
		return name, msg
	}
	return name, ""
}
