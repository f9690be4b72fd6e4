package dap

import (
	"context"
	"errors"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
)

// The program's source languages (package jdwp/lang): dap asks the one of
// a file (breakpoints) or of a class (frames, variables, evaluation) and
// knows no language's rules itself.

// langOfFile is the language of a source file, by its extension.
func (d *debuggee) langOfFile(path string) lang.Language { return d.srcs.langs.ForFile(path) }

// langOfClass is the language of a class, by its SourceFile attribute
// (through the class's source, which a stack trace has cached; asked only
// when the session knows several languages).
func (d *debuggee) langOfClass(ctx context.Context, class jdwp.ReferenceTypeID) lang.Language {
	if len(d.srcs.langs) == 1 || class == 0 {
		return d.srcs.langs.ForClass("")
	}
	sig, err := d.vm.Signature(ctx, class)
	if err != nil {
		return d.srcs.langs.ForClass("")
	}
	src, err := d.source(ctx, class, sig)
	if err != nil || src == nil {
		return d.srcs.langs.ForClass("")
	}
	return d.srcs.langs.ForClass(src.Name)
}

// sourceLine is the line a user reads for line of class's line table (the
// class file's own stratum): the class's language maps it (through the
// class's SMAP, for a language with strata; Java's lines are the class
// file's).
func (d *debuggee) sourceLine(ctx context.Context, class jdwp.ReferenceTypeID, sig string, line int) int {
	at := lang.Located{ClassSig: sig, Line: line, SMAP: func(ctx context.Context) (string, error) {
		if !d.caps.CanGetSourceDebugExtension {
			return "", errors.New("the VM cannot give a class's SourceDebugExtension")
		}
		return d.vm.SourceDebugExtension(ctx, class)
	}}
	return d.langOfClass(ctx, class).Locate(at).Line
}
