package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"syscall"
)

// command is one subcommand. Each lives in its own file and registers itself in init.
type command struct {
	name    string
	summary string
	// synopsis is the command's usage line (lines, for several forms),
	// starting "ddmbridge NAME"; --help and a usage error print it first.
	synopsis string
	// run parses args with fs (already carrying the global logging flags) and does the work.
	run func(ctx context.Context, fs *flag.FlagSet, args []string) error
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// errUsage is returned by a subcommand whose arguments are wrong; main prints usage and exits 2.
var errUsage = errors.New("usage")

// errFlags wraps the flag package's parse errors (an unknown flag, a bad
// value): the flag package has printed the error and the usage already, and
// the command exits 2, as with flag.ExitOnError.
var errFlags = errors.New("bad flags")

// printUsage is a command's default usage: its synopsis, what it does, its
// flags. Commands with more to say set fs.Usage themselves.
func printUsage(fs *flag.FlagSet, c *command) {
	w := fs.Output()
	for i, l := range strings.Split(c.synopsis, "\n") {
		switch {
		case i == 0:
			fmt.Fprintln(w, "usage: "+l)
		case strings.HasPrefix(l, "["): // more flags of the line above
			fmt.Fprintln(w, strings.Repeat(" ", len("usage: ddmbridge  "+c.name))+l)
		default: // another form
			fmt.Fprintln(w, "       "+l)
		}
	}
	fmt.Fprintf(w, "\n%s.\n\nflags:\n", upperFirst(c.summary))
	fs.PrintDefaults()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ddmbridge <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Every command accepts --log-level and --trace; run 'ddmbridge <command> -h' for its flags.")
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout) // asked for: it is the command's output
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "ddmbridge: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	fs := flag.NewFlagSet("ddmbridge "+c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if slices.ContainsFunc(args[1:], isHelpFlag) {
		fs.SetOutput(stdout) // help asked for goes to stdout; usage errors to stderr
	}
	fs.Usage = func() { printUsage(fs, c) }
	lf := addLogFlags(fs)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx = withStdout(ctx, stdout)
	ctx = withLogSetup(ctx, func() error { return lf.setup(stderr) })
	err := c.run(ctx, fs, args[1:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errFlags):
		return 2 // the flag package printed the error and the usage
	case errors.Is(err, errInterrupted):
		fmt.Fprintf(stderr, "ddmbridge %s: %v\n", c.name, err)
		return 130 // as a shell reports a command ended by SIGINT
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "ddmbridge %s: %v\n", c.name, err)
		fs.Usage()
		return 2
	default:
		fmt.Fprintf(stderr, "ddmbridge %s: %v\n", c.name, err)
		return 1
	}
}

func isHelpFlag(a string) bool { return a == "-h" || a == "-help" || a == "--help" || a == "--h" }

// parse parses the subcommand's flags and configures logging from them.
func parse(ctx context.Context, fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := ctx.Value(logSetupKey{}).(func() error)(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err) // --log-level, --trace or --log-format
	}
	return nil
}

// parseFlags is fs.Parse with its errors marked as usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return fmt.Errorf("%w: %w", errFlags, err)
	}
	return err
}

// parseWithOperands is parse for commands that take operands among their
// flags (FILE --histo, --histo FILE): it returns the operands in order.
func parseWithOperands(ctx context.Context, fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for rest := args; ; {
		if err := parseFlags(fs, rest); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	return pos, parse(ctx, fs, nil)
}

type stdoutKey struct{}
type logSetupKey struct{}

func withStdout(ctx context.Context, w io.Writer) context.Context {
	return context.WithValue(ctx, stdoutKey{}, w)
}

// stdout is where command output goes; logs never go there.
func stdout(ctx context.Context) io.Writer { return ctx.Value(stdoutKey{}).(io.Writer) }

func withLogSetup(ctx context.Context, f func() error) context.Context {
	return context.WithValue(ctx, logSetupKey{}, f)
}

type logFlags struct {
	level  string
	trace  string
	format string
}

func addLogFlags(fs *flag.FlagSet) *logFlags {
	lf := &logFlags{}
	fs.StringVar(&lf.level, "log-level", "info", "log level: trace, debug, info, warn, error, disabled")
	fs.StringVar(&lf.trace, "trace", "", "comma-separated trace kinds to log at trace level, e.g. jdwp,ddm or jdwp.cmd,jdwp.event (kinds: "+strings.Join(traceKindNames(), ", ")+"; 'all' for every kind)")
	fs.StringVar(&lf.format, "log-format", "console", "log format on stderr: console or json")
	return lf
}
