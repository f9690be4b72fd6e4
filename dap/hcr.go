package dap

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ddmbridge/ddmbridge/dap/classfile"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/debugger"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
)

// Hot code replace: the custom request redefineClasses reads .class files,
// maps each to the loaded class of the same name (its this_class), and
// redefines them all at once (VirtualMachine.RedefineClasses). What the VM
// refuses is reported in words, with the JDWP error name. The result is
// also sent as a hotCodeReplace event, so an editor can show it however the
// redefinition was asked for.

func (s *session) redefineClasses(ctx context.Context, r *redefineClassesRequest) (HotCodeReplaceBody, error) {
	d := s.dbg
	if err := d.cannot("supportsHotCodeReplace"); err != nil {
		return HotCodeReplaceBody{}, failWith(ErrVMCannot, err)
	}
	files := append([]string(nil), r.Arguments.ClassFiles...)
	if dir := r.Arguments.Directory; dir != "" {
		err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".class") {
				files = append(files, p)
			}
			return err
		})
		if err != nil {
			return HotCodeReplaceBody{}, err
		}
	}
	if len(files) == 0 {
		return HotCodeReplaceBody{}, errors.New(`give "classFiles" or a "directory" with .class files`)
	}
	body := d.redefine(ctx, files)
	s.send(&customEvent[HotCodeReplaceBody]{Event: newEvent("hotCodeReplace"), Body: body})
	if !body.Success {
		return HotCodeReplaceBody{}, asIs(errors.New(body.Message))
	}
	return body, nil
}

// redefine reads class files and has the debugger layer redefine the
// classes they define.
func (d *debuggee) redefine(ctx context.Context, files []string) HotCodeReplaceBody {
	var body HotCodeReplaceBody
	var defs []debugger.ClassFile
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil {
			var internal string
			if internal, err = classfile.ThisClass(b); err == nil {
				defs = append(defs, debugger.ClassFile{Path: f, Name: javalang.ClassName(internal), Bytes: b})
				continue
			}
		}
		body.Skipped = append(body.Skipped, SkippedClass{File: f, Reason: err.Error()})
	}
	r := d.t.Redefine(ctx, defs, func(c jdwp.ReferenceTypeID) {
		d.srcs.pools.Forget(c)
		d.srcs.outlines.Forget(c)
	})
	for _, sk := range r.Skipped {
		body.Skipped = append(body.Skipped, SkippedClass{File: sk.File, Class: sk.Class, Reason: sk.Reason})
	}
	body.Success, body.Message, body.Classes, body.Error = r.Success, r.Message, r.Classes, r.Error
	return body
}
