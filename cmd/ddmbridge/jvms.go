package main

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/ddmbridge/ddmbridge/jdwp/localjvm"
)

// jvms lists the local JVMs for an "attach to process" picker: the VS Code
// extension (or a user) picks a pid and attaches with "processId".
func init() {
	register(&command{
		name:     "jvms",
		summary:  "list the local JVMs and the JDWP address each can be attached at",
		synopsis: "ddmbridge jvms [--json]",
		run: func(ctx context.Context, fs *flag.FlagSet, args []string) error {
			asJSON := fs.Bool("json", false, "print JSON instead of a table")
			if err := parse(ctx, fs, args); err != nil {
				return err
			}
			if fs.NArg() > 0 {
				return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
			}
			ps, err := localjvm.List()
			if err != nil {
				return err
			}
			if *asJSON {
				if ps == nil {
					ps = []localjvm.Process{}
				}
				return printJSON(stdout(ctx), ps)
			}
			tw := tabwriter.NewWriter(stdout(ctx), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "PID\tMAIN\tJDWP")
			for _, p := range ps {
				addr := p.Address
				if addr == "" {
					addr = "— " + p.NoAttach
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\n", p.PID, p.Main, addr)
			}
			return tw.Flush()
		},
	})
}
