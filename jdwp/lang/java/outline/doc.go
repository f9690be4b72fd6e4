// Package outline renders a loaded class that has no source file as Java
// source would show it: package, declaration, fields, and each method's
// declaration with the bytecode the VM runs, line-number markers from the
// line table, and, per instruction, the outline line it is on (so a frame
// in such a class points at its instruction).
//
// It owns the rendering. It reads the class through the mirror and decodes
// bytecode with jdwp/classfile, and must not touch DAP or where sources
// come from.
package outline
