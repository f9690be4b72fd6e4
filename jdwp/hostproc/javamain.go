package hostproc

import (
	"path/filepath"
	"strings"
)

// javaMain returns what a java command line runs: the main class, the jar
// (-jar) or the module/class (-m), or "" if it cannot tell.
func javaMain(args []string) string {
	// Options of the java launcher that take a separate value.
	withValue := map[string]bool{
		"-cp": true, "-classpath": true, "--class-path": true, "-p": true, "--module-path": true,
		"--upgrade-module-path": true, "--add-modules": true, "--limit-modules": true, "--add-reads": true,
		"--add-exports": true, "--add-opens": true, "--patch-module": true, "--source": true,
		"--enable-native-access": true,
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-jar" && i+1 < len(args):
			return filepath.Base(args[i+1])
		case (a == "-m" || a == "--module") && i+1 < len(args):
			return args[i+1]
		case strings.HasPrefix(a, "--module="):
			return strings.TrimPrefix(a, "--module=")
		case withValue[a]:
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}
