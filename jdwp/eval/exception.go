package eval

import (
	"context"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
)

// Exception is what a debugger shows of an exception: its class, its
// message (getMessage(), or its detail message when methods cannot run),
// its stack trace as Java prints it, and its cause (up to 4 deep).
type Exception struct {
	Type       string // binary name
	Message    string
	StackTrace string // "\tat Class.method(File.java:12)\n" lines
	Cause      *Exception
}

// Exception describes exc, running getMessage() and getStackTrace() in
// e's thread.
func (e *Frame) Exception(ctx context.Context, exc jdwp.ObjectID) Exception {
	return e.exception(ctx, exc, 0)
}

func (e *Frame) exception(ctx context.Context, exc jdwp.ObjectID, depth int) Exception {
	vm := e.ev.vm
	_, sig, err := vm.ObjectType(ctx, exc)
	if err != nil {
		return Exception{Message: err.Error()}
	}
	obj := expr.ObjectRef(uint64(exc), sig)
	out := Exception{Type: javalang.TypeName(sig)}
	if v, err := e.Call(ctx, obj, "getMessage"); err == nil && v.Kind == expr.KindString {
		out.Message, _ = e.StringOf(ctx, v)
	} else {
		_, out.Message = e.ev.DescribeException(ctx, e.f.Thread, exc)
	}
	out.StackTrace = e.stackTrace(ctx, obj)
	if depth < 4 {
		if cause, err := e.Field(ctx, obj, "cause"); err == nil && cause.Kind == expr.KindObject && cause.Ref != obj.Ref {
			c := e.exception(ctx, jdwp.ObjectID(cause.Ref), depth+1)
			out.Cause = &c
		}
	}
	return out
}

// stackTrace formats getStackTrace() as Java prints it; when methods
// cannot run, the thread's own frames stand in.
func (e *Frame) stackTrace(ctx context.Context, obj expr.Value) string {
	vm := e.ev.vm
	var b strings.Builder
	if arr, err := e.Call(ctx, obj, "getStackTrace"); err == nil && arr.Kind == expr.KindObject {
		if n, err := e.Length(ctx, arr); err == nil {
			if vals, err := vm.ArrayValues(ctx, jdwp.ObjectID(arr.Ref), 0, n); err == nil {
				for _, v := range vals {
					el, err := e.ev.Value(ctx, v)
					if err != nil || el.Kind != expr.KindObject {
						continue
					}
					str := func(name string) string {
						f, err := e.Field(ctx, el, name)
						if err != nil || f.Kind != expr.KindString {
							return ""
						}
						s, _ := e.StringOf(ctx, f)
						return s
					}
					where := str("fileName")
					if ln, err := e.Field(ctx, el, "lineNumber"); err == nil && where != "" && ln.I >= 0 {
						where += fmt.Sprintf(":%d", ln.I)
					}
					if where == "" {
						where = "Unknown Source"
					}
					fmt.Fprintf(&b, "\tat %s.%s(%s)\n", str("declaringClass"), str("methodName"), where)
				}
				return b.String()
			}
		}
	}
	frames, err := vm.Frames(ctx, e.f.Thread, 0, -1)
	if err != nil {
		return ""
	}
	for _, f := range frames {
		sig, _ := vm.Signature(ctx, f.Loc.Class)
		m, _ := vm.Method(ctx, f.Loc.Class, f.Loc.Method)
		where := "Unknown Source"
		if file, err := vm.SourceFile(ctx, f.Loc.Class); err == nil && file != "" {
			where = file
			if lt, err := vm.LineTable(ctx, f.Loc.Class, f.Loc.Method); err == nil && !lt.Absent {
				where += fmt.Sprintf(":%d", lt.LineFor(f.Loc.Index))
			}
		}
		fmt.Fprintf(&b, "\tat %s.%s(%s)\n", javalang.TypeName(sig), m.Name, where)
	}
	return b.String()
}
