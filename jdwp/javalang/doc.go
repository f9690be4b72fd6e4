// Package javalang holds the few facts of the Java language that the
// expression engine (dap/expr) and the mirror layer (jdwp/mirror) both need
// and neither owns: Java's text of a float (Double.toString and
// Float.toString), Java type names from JNI signatures, and the error that
// says a name or class is not known.
//
// It must not touch JDWP, DAP or any VM, and imports nothing of the project:
// dap/expr stays free of jdwp by depending on this package only.
package javalang
