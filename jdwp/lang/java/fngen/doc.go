// Package fngen compiles the lambdas and method references of the
// expression engine (an [expr.Func]) into Java class files that implement a
// functional interface, for package jdwp/eval to define in the target VM through
// the debuggee's class loader — no JDK on the debugger side.
//
// Compile gives the root class and those of the functions nested in it;
// a generated class keeps the captured values in an Object[] given to its
// constructor; its single abstract method boxes its parameters and runs the
// body with every value an Object: operations go through the runtime class
// [RuntimeName] (Rt.java here, embedded compiled as Rt.class), which does
// Java's numeric promotion, string concatenation, field reads and method
// calls resolved by the arguments' runtime types through reflection. The
// result is converted back to the method's return type at the boundary.
//
// A block body compiles to bytecode with branches (if, the loops, break,
// continue, return, throw) and exception handlers (catch); its locals are slots holding boxes, converted
// as Java's assignment converts. A lambda or method reference nested in a
// body compiles to a further class, a java.lang.reflect.InvocationHandler
// created where the body reaches it with the enclosing lambda's values it
// uses; the runtime makes it a Proxy of the functional interface the
// parameter of the chosen method names (its type is known only then).
//
// What it owns: the translation of expression nodes into bytecode, the
// runtime class and its source. What it must not touch: JDWP, DAP or any VM
// (package jdwp/eval defines the classes); the class-file layout (package
// jdwp/lang/java/classgen).
package fngen
