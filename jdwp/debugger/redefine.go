package debugger

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/ddmbridge/ddmbridge/jdwp"
	"github.com/ddmbridge/ddmbridge/jdwp/classfile"
	"github.com/ddmbridge/ddmbridge/jdwp/javalang"
	"github.com/ddmbridge/ddmbridge/jdwp/mirror"
)

// Hot code replace: new class files replace the loaded classes of the same
// name all at once (VirtualMachine.RedefineClasses). What the suspended
// frames of those classes run is recorded first, so frames still running
// an old method show it (Target.Obsolete); what the VM refuses is said in
// words, with the JDWP error name; after a redefinition, the mirror's
// caches of the classes are dropped and their line breakpoints set again
// in the new code.

// ClassFile is a new class file: where it was read, the binary name of
// the class it defines, and its bytes.
type ClassFile struct {
	Path  string
	Name  string
	Bytes []byte
}

// Redefinition is the outcome of Redefine.
type Redefinition struct {
	Success bool
	Message string   // what happened, or what the VM refused
	Classes []string // the classes redefined (or refused), by binary name
	Error   string   // the JDWP error name when the VM refused
	// Skipped are class files of classes the VM has not loaded (nothing to
	// replace: the new code is used when they load).
	Skipped []SkippedClass
}

// SkippedClass is a class file Redefine did not use, and why.
type SkippedClass struct {
	File, Class, Reason string
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

// RedefineFiles reads class files and redefines the classes they define
// (Redefine); a file that cannot be read or is no class file is skipped,
// saying why.
func (t *Target) RedefineFiles(ctx context.Context, paths []string, redefined func(jdwp.ReferenceTypeID)) Redefinition {
	var files []ClassFile
	var skipped []SkippedClass
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err == nil {
			var internal string
			if internal, err = classfile.ThisClass(b); err == nil {
				files = append(files, ClassFile{Path: p, Name: javalang.ClassName(internal), Bytes: b})
				continue
			}
		}
		skipped = append(skipped, SkippedClass{File: p, Reason: err.Error()})
	}
	r := t.Redefine(ctx, files, redefined)
	r.Skipped = append(skipped, r.Skipped...)
	return r
}

// Obsolete is what the frames of redefined classes ran before each
// redefinition.
func (t *Target) Obsolete() *mirror.Obsolete { return &t.obsolete }

// redefined remembers the bytes each class was last redefined with.
type redefined struct {
	mu     sync.Mutex
	digest map[jdwp.ReferenceTypeID][sha256.Size]byte
}

// same reports whether every class in loaded was last redefined with a
// class file of digest d.
func (r *redefined) same(loaded []jdwp.ReferenceTypeID, d [sha256.Size]byte) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range loaded {
		if have, ok := r.digest[c]; !ok || have != d {
			return false
		}
	}
	return len(loaded) > 0
}

func (r *redefined) took(c jdwp.ReferenceTypeID, d [sha256.Size]byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.digest == nil {
		r.digest = map[jdwp.ReferenceTypeID][sha256.Size]byte{}
	}
	r.digest[c] = d
}

// Redefine maps class files to the loaded classes they replace and
// redefines them at once; redefined, when not nil, is told each class the
// VM took (its caches of the class no longer hold). A class file with the
// bytes its class was last redefined with is skipped (a build, or a
// "directory" request, rewrites every class file: only the changed ones
// are replaced and named).
func (t *Target) Redefine(ctx context.Context, files []ClassFile, redefined func(jdwp.ReferenceTypeID)) Redefinition {
	var out Redefinition
	var defs []jdwp.ClassDef
	digests := map[jdwp.ReferenceTypeID][sha256.Size]byte{}
	for _, f := range files {
		loaded, err := t.VM.Loaded(ctx, javalang.Signature(f.Name))
		if err != nil {
			out.Message = fmt.Sprintf("look up %s: %v", f.Name, err)
			return out
		}
		if len(loaded) == 0 {
			out.Skipped = append(out.Skipped, SkippedClass{File: f.Path, Class: f.Name, Reason: "not loaded: the VM uses the new class file when it loads the class"})
			continue
		}
		d := sha256.Sum256(f.Bytes)
		ids := make([]jdwp.ReferenceTypeID, len(loaded))
		for i, c := range loaded {
			ids[i] = c.ID
		}
		if t.sent.same(ids, d) {
			out.Skipped = append(out.Skipped, SkippedClass{File: f.Path, Class: f.Name, Reason: "unchanged since the last hot code replace"})
			continue
		}
		for _, c := range loaded {
			defs = append(defs, jdwp.ClassDef{Type: c.ID, ClassFile: f.Bytes})
			digests[c.ID] = d
		}
		out.Classes = append(out.Classes, f.Name)
	}
	sort.Strings(out.Classes)
	if len(defs) == 0 {
		out.Success = true
		out.Message = "nothing to replace: the classes are not loaded or unchanged since the last hot code replace"
		return out
	}
	classes := map[jdwp.ReferenceTypeID]bool{}
	for _, def := range defs {
		classes[def.Type] = true
	}
	keep, err := t.obsolete.Before(ctx, t.VM, classes)
	if err != nil {
		t.log.Debug().Err(err).Msg("hot code replace: the frames of the redefined classes could not be read; obsolete frames will show no line")
	}
	err = t.Conn.RedefineClasses(ctx, defs)
	if err == nil && keep != nil {
		keep()
	}
	if err != nil {
		code := jdwp.Code(err)
		why, ok := redefineErrors[code]
		if !ok {
			why = err.Error()
		}
		out.Error = code.String()
		out.Message = fmt.Sprintf("hot code replace refused: %s (%s); classes: %s", why, code.String(), strings.Join(out.Classes, ", "))
		return out
	}
	for c, d := range digests {
		t.sent.took(c, d)
	}
	for c := range classes {
		t.VM.Redefined(c)
		t.stacks.forget(0) // frames may run obsolete methods now
		t.pools.Forget(c)
		if redefined != nil {
			redefined(c)
		}
	}
	t.ReinstallBreakpoints(ctx, classes)
	out.Success = true
	out.Message = fmt.Sprintf("replaced %s; methods running now finish with the old code, calls from now on run the new", strings.Join(out.Classes, ", "))
	return out
}
