package localjvm

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// JDK is an installed JDK or JRE: its home and the feature version its
// release file names (JAVA_VERSION="25.0.3" → 25).
type JDK struct {
	Home    string `json:"home"`
	Version int    `json:"version"`
	// Full is the release file's JAVA_VERSION ("25.0.3"); Vendor its
	// IMPLEMENTOR ("Eclipse Adoptium"), when it says.
	Full   string `json:"full"`
	Vendor string `json:"vendor,omitempty"`
	// Compiler says the home has bin/javac (a JDK, not a JRE).
	Compiler bool `json:"compiler"`
}

// InstalledJDKs lists the JDKs of this machine: the folders of
// /usr/lib/jvm, $JAVA_HOME and SDKMAN's ~/.sdkman/candidates/java, each
// once (symlinks resolved), newest first. A folder without bin/java and a
// release file is not a JDK and is left out.
func InstalledJDKs() []JDK {
	var dirs []string
	for _, root := range []string{"/usr/lib/jvm", filepath.Join(os.Getenv("HOME"), ".sdkman", "candidates", "java")} {
		ents, err := os.ReadDir(root)
		if err != nil {
			continue
		}
		for _, e := range ents {
			dirs = append(dirs, filepath.Join(root, e.Name()))
		}
	}
	if h := os.Getenv("JAVA_HOME"); h != "" {
		dirs = append(dirs, h)
	}
	// A folder before a symlink to it: a JDK is listed by its own name
	// (java-17-openjdk-amd64, not the alias java-1.17.0-openjdk-amd64).
	sort.SliceStable(dirs, func(i, j int) bool { return !isSymlink(dirs[i]) && isSymlink(dirs[j]) })
	seen := map[string]bool{}
	var out []JDK
	for _, d := range dirs {
		real, err := filepath.EvalSymlinks(d)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		if j, ok := ReadJDK(d); ok {
			out = append(out, j)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Version != out[j].Version {
			return out[i].Version > out[j].Version
		}
		return out[i].Home < out[j].Home
	})
	return out
}

func isSymlink(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// ReadJDK describes the JDK at home from its release file; ok is false
// when home has no bin/java or no JAVA_VERSION.
func ReadJDK(home string) (JDK, bool) {
	if fi, err := os.Stat(filepath.Join(home, "bin", "java")); err != nil || fi.IsDir() {
		return JDK{}, false
	}
	f, err := os.Open(filepath.Join(home, "release"))
	if err != nil {
		return JDK{}, false
	}
	defer f.Close()
	j := JDK{Home: home}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		v = strings.Trim(v, `"`)
		switch k {
		case "JAVA_VERSION":
			j.Full = v
		case "IMPLEMENTOR":
			j.Vendor = v
		}
	}
	j.Version = FeatureVersion(j.Full)
	if j.Version == 0 {
		return JDK{}, false
	}
	_, err = os.Stat(filepath.Join(home, "bin", "javac"))
	j.Compiler = err == nil
	return j, true
}

// FeatureVersion is the feature release of a Java version string: "25.0.3"
// → 25, "1.8.0_402" → 8, "21" → 21; 0 when it is none.
func FeatureVersion(v string) int {
	v = strings.TrimPrefix(v, "1.")
	end := strings.IndexFunc(v, func(r rune) bool { return r < '0' || r > '9' })
	if end >= 0 {
		v = v[:end]
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0
	}
	return n
}
