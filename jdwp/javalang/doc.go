// Package javalang holds the facts of the Java language and the JVM's type
// names that the rest of the project shares and no layer above owns: Java's
// text of a float (Double.toString and Float.toString), the error that says
// a name or class is not known, and the one home of type-name conversions
// (signature.go): signatures ("Ljava/lang/String;", "[I"), internal names
// ("java/lang/String") and Java names ("java.lang.String", "int[]") into
// one another, primitive letters, array dimensions, simple names and
// method descriptors' parameters. No other package converts these by hand.
//
// It must not touch JDWP, DAP or any VM, and imports nothing of the project:
// jdwp/lang/java/expr stays free of jdwp by depending on this package only.
package javalang
