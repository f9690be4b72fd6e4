package demoapp

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/ddmbridge/ddmbridge/jdwp/jvmrun"
)

// Source is DemoApp.java.
//
//go:embed DemoApp.java
var Source string

// MainClass is the class to run.
const MainClass = "DemoApp"

// Classes compiles the app (once per machine, cached) and returns the class
// directory.
func Classes(ctx context.Context) (string, error) {
	return jvmrun.CompileFiles(ctx, map[string][]byte{"DemoApp.java": []byte(Source)})
}

// Start compiles and starts the app under a JDWP agent. opts.MainClass and,
// unless opts.Suspend, opts.ReadyLine ("READY") are filled in.
func Start(ctx context.Context, opts jvmrun.Options) (*jvmrun.JVM, error) {
	dir, err := Classes(ctx)
	if err != nil {
		return nil, err
	}
	opts.ClassPath = append([]string{dir}, opts.ClassPath...)
	opts.MainClass = MainClass
	if opts.ReadyLine == "" && !opts.Suspend {
		opts.ReadyLine = "READY"
	}
	return jvmrun.Start(ctx, opts)
}

// Line returns the line of DemoApp.java marked with "// @"+marker, e.g.
// Line("work-first") is the first line of work(int). It panics on an unknown
// marker.
func Line(marker string) int {
	for i, l := range strings.Split(Source, "\n") {
		if strings.Contains(l, "// @"+marker) {
			return i + 1
		}
	}
	panic(fmt.Sprintf("demoapp: no line marked @%s", marker))
}
