// Package langs lists the source languages the debugger knows (each one's
// floor under jdwp/lang), the default first: what a session is given when
// its front end names none.
//
// What it owns: the list. What it must not touch: anything a language
// says (that is its floor's), the VM, DAP.
package langs

import (
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/kotlin"
)

// All returns every language the debugger knows, Java first (the language
// of a file or class no other one claims), then Kotlin.
func All() lang.Set { return lang.Set{java.Lang, kotlin.Lang} }
