package dap

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ddmbridge/ddmbridge/dap/classfile"
	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	godap "github.com/google/go-dap"
)

// Hot code replace: the custom request redefineClasses reads .class files,
// maps each to the loaded class of the same name (its this_class), and
// redefines them all at once (VirtualMachine.RedefineClasses). What the VM
// refuses is reported in words, with the JDWP error name. The result is
// also sent as a hotCodeReplace event, so an editor can show it however the
// redefinition was asked for.

// RedefineClassesArguments are the arguments of redefineClasses: class
// files, a directory searched for them (recursively), or both.
type RedefineClassesArguments struct {
	ClassFiles []string `json:"classFiles,omitempty"`
	Directory  string   `json:"directory,omitempty"`
}

type redefineClassesRequest struct {
	godap.Request
	Arguments RedefineClassesArguments `json:"arguments"`
}

// HotCodeReplaceBody is the body of the redefineClasses response and of the
// hotCodeReplace event.
type HotCodeReplaceBody struct {
	// Success is whether the VM took the new classes.
	Success bool `json:"success"`
	// Message says what happened, or what the VM refused.
	Message string `json:"message"`
	// Classes are the classes redefined (or refused), by binary name.
	Classes []string `json:"classes"`
	// Skipped are class files of classes the VM has not loaded (nothing to
	// replace: the new code is used when they load) or could not read.
	Skipped []SkippedClass `json:"skipped,omitempty"`
	// Error is the JDWP error name when the VM refused, e.g. "ADD_METHOD_NOT_IMPLEMENTED".
	Error string `json:"error,omitempty"`
}

// SkippedClass is a class file redefineClasses did not use, and why.
type SkippedClass struct {
	File   string `json:"file"`
	Class  string `json:"class,omitempty"`
	Reason string `json:"reason"`
}

type redefineClassesResponse struct {
	godap.Response
	Body HotCodeReplaceBody `json:"body"`
}

// redefineErrors says in words what each JDWP error of RedefineClasses means.
var redefineErrors = map[jdwp.ErrorCode]string{
	jdwp.ErrAddMethodNotImplemented:       "adding a method is not supported by this VM",
	jdwp.ErrSchemaChangeNotImplemented:    "adding, removing or changing a field is not supported by this VM",
	jdwp.ErrHierarchyChangeNotImplemented: "changing the superclass or the interfaces is not supported by this VM",
	jdwp.ErrDeleteMethodNotImplemented:    "deleting a method is not supported by this VM",
	jdwp.ErrClassModifiersChangeNotImpl:   "changing a class's modifiers is not supported by this VM",
	jdwp.ErrMethodModifiersChangeNotImpl:  "changing a method's modifiers is not supported by this VM",
	jdwp.ErrClassAttributeChangeNotImpl:   "changing class attributes (nest members, record components, permitted subclasses) is not supported by this VM",
	jdwp.ErrInvalidClassFormat:            "a class file is malformed",
	jdwp.ErrCircularClassDefinition:       "the new classes make a circular class hierarchy",
	jdwp.ErrFailsVerification:             "a new class fails bytecode verification",
	jdwp.ErrUnsupportedVersion:            "a class file's version is newer than this VM supports",
	jdwp.ErrNamesDontMatch:                "a class file defines a different class than the one it replaces",
	jdwp.ErrNotImplemented:                "this VM does not implement class redefinition",
}

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

// redefine maps class files to loaded classes and redefines them.
func (d *debuggee) redefine(ctx context.Context, files []string) HotCodeReplaceBody {
	var body HotCodeReplaceBody
	var defs []jdwp.ClassDef
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			body.Skipped = append(body.Skipped, SkippedClass{File: f, Reason: err.Error()})
			continue
		}
		internal, err := classfile.ThisClass(b)
		if err != nil {
			body.Skipped = append(body.Skipped, SkippedClass{File: f, Reason: err.Error()})
			continue
		}
		name := javalang.ClassName(internal)
		loaded, err := d.vm.Loaded(ctx, javalang.ClassSignature(internal))
		if err != nil {
			body.Message = fmt.Sprintf("look up %s: %v", name, err)
			return body
		}
		if len(loaded) == 0 {
			body.Skipped = append(body.Skipped, SkippedClass{File: f, Class: name, Reason: "not loaded: the VM uses the new class file when it loads the class"})
			continue
		}
		for _, c := range loaded {
			defs = append(defs, jdwp.ClassDef{Type: c.ID, ClassFile: b})
		}
		body.Classes = append(body.Classes, name)
	}
	sort.Strings(body.Classes)
	if len(defs) == 0 {
		body.Success = true
		body.Message = "nothing to replace: none of the classes is loaded"
		return body
	}
	// What the suspended frames of these classes run, to show them after.
	classes := map[jdwp.ReferenceTypeID]bool{}
	for _, def := range defs {
		classes[def.Type] = true
	}
	keep, err := d.srcs.obsolete.Before(ctx, d.vm, classes)
	if err != nil {
		d.log.Debug().Err(err).Msg("hot code replace: the frames of the redefined classes could not be read; obsolete frames will show no line")
	}
	err = d.conn.RedefineClasses(ctx, defs)
	if err == nil && keep != nil {
		keep()
	}
	if err != nil {
		code := jdwp.Code(err)
		why, ok := redefineErrors[code]
		if !ok {
			why = err.Error()
		}
		body.Error = code.String()
		body.Message = fmt.Sprintf("hot code replace refused: %s (%s); classes: %s", why, code.String(), strings.Join(body.Classes, ", "))
		return body
	}
	// What was cached about the old classes no longer holds.
	redefined := map[jdwp.ReferenceTypeID]bool{}
	for _, def := range defs {
		redefined[def.Type] = true
		d.vm.Redefined(def.Type)
		d.srcs.pools.Forget(def.Type)
		d.srcs.outlines.Forget(def.Type)
	}
	d.t.ReinstallBreakpoints(ctx, redefined)
	body.Success = true
	body.Message = fmt.Sprintf("replaced %s; methods running now finish with the old code, calls from now on run the new", strings.Join(body.Classes, ", "))
	return body
}
