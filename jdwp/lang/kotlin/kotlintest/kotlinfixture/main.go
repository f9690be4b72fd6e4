package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/ddmbridge/ddmbridge/jdwp/lang/kotlin/kotlintest"
)

// compiled is what the command prints.
type compiled struct {
	MainClass string   `json:"mainClass"`
	Classes   string   `json:"classes"`
	Sources   string   `json:"sources"`
	ClassPath []string `json:"classPath"`
}

func main() {
	lambdas := flag.String("lambdas", string(kotlintest.Indy), "how lambdas compile: indy (Kotlin 2's default) or class (-Xlambdas=class)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "kotlinfixture: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, kotlintest.Lambdas(*lambdas)); err != nil {
		fmt.Fprintln(os.Stderr, "kotlinfixture:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, mode kotlintest.Lambdas) error {
	files, err := kotlintest.FixtureFiles()
	if err != nil {
		return err
	}
	c, err := kotlintest.Compile(ctx, files, mode)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(compiled{MainClass: kotlintest.FixtureMain, Classes: c.Classes, Sources: c.Sources, ClassPath: c.ClassPath})
}
