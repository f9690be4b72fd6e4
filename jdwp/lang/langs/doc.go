// Package langs lists the source languages the debugger knows (each one's
// floor under jdwp/lang), the default first: what a session is given when
// its front end names none.
//
// What it owns: the list. What it must not touch: anything a language
// says (that is its floor's), the VM, DAP.
package langs
