package dap

import (
	"context"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// The program's source languages (package jdwp/lang): dap asks the one of
// a file (breakpoints) or of a class (frames, variables, evaluation) and
// knows no language's rules itself.

// langOfFile is the language of a source file, by its extension.
func (d *debuggee) langOfFile(path string) lang.Language { return d.srcs.langs.ForFile(path) }

// langOfClass is the language of a class, by its SourceFile attribute
// (read once per class, and only when the session knows several).
func (d *debuggee) langOfClass(ctx context.Context, class jdwp.ReferenceTypeID) lang.Language {
	if len(d.srcs.langs) == 1 || class == 0 {
		return d.srcs.langs.ForClass("")
	}
	l, err := d.srcs.langOf.Get(class, func() (lang.Language, error) {
		file, err := d.vm.SourceFile(ctx, class)
		if err != nil && !mirror.Absent(err) {
			return nil, err
		}
		return d.srcs.langs.ForClass(file), nil
	})
	if err != nil {
		return d.srcs.langs.ForClass("")
	}
	return l
}
