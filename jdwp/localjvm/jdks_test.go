package localjvm

import (
	"os"
	"path/filepath"
	"testing"
)

// TestInstalledJDKs reads release files: a JDK, a JRE (no javac), a folder
// that is no JDK, a symlink to a JDK listed once, SDKMAN's folder and
// JAVA_HOME; newest first.
func TestInstalledJDKs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	mk := func(dir, version string, javac bool) {
		t.Helper()
		os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
		os.WriteFile(filepath.Join(dir, "bin", "java"), nil, 0o755)
		if javac {
			os.WriteFile(filepath.Join(dir, "bin", "javac"), nil, 0o755)
		}
		if version != "" {
			os.WriteFile(filepath.Join(dir, "release"), []byte("IMPLEMENTOR=\"Acme\"\nJAVA_VERSION=\""+version+"\"\n"), 0o644)
		}
	}
	sdk := filepath.Join(home, ".sdkman", "candidates", "java")
	mk(filepath.Join(sdk, "21.0.2-tem"), "21.0.2", true)
	mk(filepath.Join(sdk, "8.0.402-tem"), "1.8.0_402", true)
	mk(filepath.Join(sdk, "broken"), "", true)
	os.Symlink(filepath.Join(sdk, "21.0.2-tem"), filepath.Join(sdk, "current"))
	jh := filepath.Join(t.TempDir(), "jre-26")
	mk(jh, "26-ea", false)
	t.Setenv("JAVA_HOME", jh)
	byHome := map[string]JDK{}
	var order []int
	for _, j := range InstalledJDKs() {
		byHome[j.Home] = j
		order = append(order, j.Version)
	}
	for i := 1; i < len(order); i++ {
		if order[i] > order[i-1] {
			t.Errorf("not newest first: %v", order)
		}
	}
	if j := byHome[filepath.Join(sdk, "21.0.2-tem")]; j.Version != 21 || !j.Compiler || j.Vendor != "Acme" {
		t.Errorf("SDKMAN's 21: %+v", j)
	}
	if j := byHome[filepath.Join(sdk, "8.0.402-tem")]; j.Version != 8 {
		t.Errorf("SDKMAN's 8: %+v", j)
	}
	if _, ok := byHome[filepath.Join(sdk, "broken")]; ok {
		t.Error("a folder without a release file listed")
	}
	if _, ok := byHome[filepath.Join(sdk, "current")]; ok {
		t.Error("a symlink to a listed JDK listed again")
	}
	if j := byHome[jh]; j.Version != 26 || j.Compiler {
		t.Errorf("JAVA_HOME's JRE: %+v", j)
	}
	for in, want := range map[string]int{"25.0.3": 25, "1.8.0_402": 8, "21": 21, "26-ea": 26, "": 0, "x": 0} {
		if got := FeatureVersion(in); got != want {
			t.Errorf("FeatureVersion(%q) = %d, want %d", in, got, want)
		}
	}
}
