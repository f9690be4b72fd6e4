package localjvm

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// InstallHint is appended to every "JDK tool not found" error.
const InstallHint = "install openjdk-17-jdk-headless (apt-get install -y openjdk-17-jdk-headless) or set JAVA_HOME"

// ErrNoJDK is wrapped by the errors of FindTool, Compile and Start when a JDK
// tool cannot be found.
var ErrNoJDK = errors.New("JDK tool not found")

// FindTool returns the path of a JDK tool ("java", "javac", "jdb"):
// $JAVA_HOME/bin/<name> when JAVA_HOME is set and holds it, otherwise the
// first <name> on $PATH.
func FindTool(name string) (string, error) {
	exe := name
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	if home := os.Getenv("JAVA_HOME"); home != "" {
		p := filepath.Join(home, "bin", exe)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath(exe)
	if err != nil {
		return "", fmt.Errorf("%s not found: %s: %w", name, InstallHint, ErrNoJDK)
	}
	return p, nil
}
