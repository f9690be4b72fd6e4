package kotlin

import (
	"context"
	"sort"
	"sync"

	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java/expr"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/kotlin/kexpr"
)

// engine is Kotlin's expressions: parsed and evaluated by kexpr, with the
// file facades the session has read as where top-level and extension
// functions are found.
type engine struct{}

// ErrNotYet is the error of a Kotlin construct the debugger does not
// evaluate yet.
var ErrNotYet = kexpr.ErrNotSupported

var facades = struct {
	sync.Mutex
	byPkg map[string]map[string]bool
}{byPkg: map[string]map[string]bool{}}

// noteFacade remembers a file's facade, for evaluation in its package.
func noteFacade(f File) {
	if f.Facade == "" {
		return
	}
	facades.Lock()
	defer facades.Unlock()
	if facades.byPkg[f.Package] == nil {
		facades.byPkg[f.Package] = map[string]bool{}
	}
	facades.byPkg[f.Package][f.Facade] = true
}

func facadesOf(pkg string) []string {
	facades.Lock()
	defer facades.Unlock()
	var out []string
	for f := range facades.byPkg[pkg] {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

var options = kexpr.Options{Facades: facadesOf}

func (engine) Parse(src string) (lang.Expression, error) {
	n, err := kexpr.Parse(src)
	if err != nil {
		return nil, err
	}
	return expression{n}, nil
}

func (engine) ParseTemplate(src string) (lang.Template, error) {
	t, err := kexpr.ParseTemplate(src, options)
	if err != nil {
		return nil, err
	}
	return t, nil
}

type expression struct{ n kexpr.Node }

func (e expression) Eval(ctx context.Context, env expr.Env) (expr.Value, error) {
	return kexpr.Eval(ctx, e.n, env, options)
}

func (e expression) Truth(ctx context.Context, env expr.Env) (bool, error) {
	return kexpr.Truth(ctx, e.n, env, options)
}
