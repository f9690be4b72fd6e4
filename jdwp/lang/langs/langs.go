package langs

import (
	"github.com/ddmbridge/ddmbridge/jdwp/lang"
	"github.com/ddmbridge/ddmbridge/jdwp/lang/java"
)

// All returns every language the debugger knows, Java first (the language
// of a file or class no other one claims).
func All() lang.Set { return lang.Set{java.Lang} }
