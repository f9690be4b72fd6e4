package dap

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp"
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
	r := d.t.RedefineFiles(ctx, files, func(c jdwp.ReferenceTypeID) { d.srcs.outlines.Forget(c) })
	body := HotCodeReplaceBody{Success: r.Success, Message: r.Message, Classes: r.Classes, Error: r.Error}
	for _, sk := range r.Skipped {
		body.Skipped = append(body.Skipped, SkippedClass{File: sk.File, Class: sk.Class, Reason: sk.Reason})
	}
	return body
}
