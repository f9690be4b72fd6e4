// Package lockedbuf is a bytes.Buffer safe for concurrent use: what a test
// hands a child process, a server or a logger to write into while it reads
// what was written. It lives in internal for the tests of every layer (the
// layering rule lets tests reach up to internal) and imports nothing of the
// project.
//
// What it owns: one buffer type. What it must not touch: the project; and
// no production package imports it (a harness, internal/layering).
package lockedbuf
