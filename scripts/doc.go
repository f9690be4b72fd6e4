// Package scripts holds the project's scripts and, in its test, the test of
// scripts/test (the README's test command, which .ci/run runs): what it
// installs on a machine that lacks something, that it changes nothing in a
// dry run, and that a failing step neither skips the others nor lets the
// script pass. The test runs the real script against a fake root and a PATH
// of stubs, so no package of this machine is touched.
//
// What it owns: the scripts. What it must not touch: the module's code; it
// imports nothing of the project.
package scripts
