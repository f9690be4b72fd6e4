package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func init() {
	register(&command{
		name:     "version",
		summary:  "print the version",
		synopsis: "ddmbridge version",
		run: func(ctx context.Context, fs *flag.FlagSet, args []string) error {
			if err := parse(ctx, fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
			}
			rev := ""
			if bi, ok := debug.ReadBuildInfo(); ok {
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" && len(s.Value) >= 12 {
						rev = " " + s.Value[:12]
					}
				}
			}
			fmt.Fprintf(stdout(ctx), "ddmbridge %s%s %s/%s %s\n", version, rev, runtime.GOOS, runtime.GOARCH, runtime.Version())
			return nil
		},
	})
}
