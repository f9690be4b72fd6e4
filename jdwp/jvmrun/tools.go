package jvmrun

import "github.com/ddmbridge/ddmbridge/jdwp/localjvm"

// The JDK's tools are found by package localjvm, which a launching debug
// session uses too; these names stay for the callers of jvmrun.

// InstallHint is appended to every "JDK tool not found" error.
const InstallHint = localjvm.InstallHint

// ErrNoJDK is wrapped by the errors of FindTool, Compile and Start when a JDK
// tool cannot be found.
var ErrNoJDK = localjvm.ErrNoJDK

// FindTool returns the path of a JDK tool (localjvm.FindTool).
func FindTool(name string) (string, error) { return localjvm.FindTool(name) }
