package srclookup

import (
	"archive/zip"
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ddmbridge/ddmbridge/jdwp/lang"
)

// Limits of an index.
const (
	// MaxFiles bounds the source files indexed in the workspace folders.
	MaxFiles = 200000
	// MaxEntry bounds the size of one source read from an archive.
	MaxEntry = 16 << 20
	// headBytes is how much of a file is read to find its package.
	headBytes = 16 << 10
)

// Found is where a source is: a file (Path) or an archive entry.
type Found struct {
	Path    string // a local file
	Archive string // a zip or jar
	Entry   string // the entry in Archive
}

// Origin says where the source came from, for the editor.
func (f Found) Origin() string {
	if f.Archive != "" {
		return filepath.Base(f.Archive)
	}
	return ""
}

// Index maps "pkg/path/File.java" to where that source is. Safe for
// concurrent use; built once by New.
type Index struct {
	files    map[string]string // workspace files by package path
	archives []*archive
	langs    lang.Set // whose sources are indexed
}

type archive struct {
	path string
	once sync.Once
	err  error
	ents map[string]string // package path → entry name
}

// Sources lists what New indexes.
type Sources struct {
	// Languages are the languages whose sources are indexed, by their
	// files' extensions (none: nothing is indexed).
	Languages lang.Set
	// Folders are walked for source files (skipping hidden folders,
	// node_modules and build output).
	Folders []string
	// ClassPath entries: a jar's -sources.jar sibling and a directory's
	// src.zip and source files are used.
	ClassPath []string
	// Archives are source archives used as they are (a JDK's lib/src.zip).
	Archives []string
}

// New indexes the workspace folders now (until ctx ends or MaxFiles are
// seen: what was indexed by then is used) and opens archives when first
// asked.
func New(ctx context.Context, s Sources) (*Index, error) {
	ix := &Index{files: map[string]string{}, langs: s.Languages}
	seenArc := map[string]bool{}
	addArchive := func(p string) {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if st, err := os.Stat(p); err != nil || st.IsDir() || seenArc[p] {
			return
		}
		seenArc[p] = true
		ix.archives = append(ix.archives, &archive{path: p})
	}
	folders := append([]string(nil), s.Folders...)
	for _, cp := range s.ClassPath {
		st, err := os.Stat(cp)
		switch {
		case err != nil:
		case st.IsDir():
			folders = append(folders, cp)
			addArchive(filepath.Join(cp, "src.zip"))
		case strings.HasSuffix(cp, ".jar"):
			addArchive(strings.TrimSuffix(cp, ".jar") + "-sources.jar")
			addArchive(filepath.Join(filepath.Dir(cp), "src.zip"))
		}
	}
	for _, a := range s.Archives {
		addArchive(a)
	}
	n := 0
	for _, root := range folders {
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable: skip
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if e.IsDir() {
				if name := e.Name(); p != root && (strings.HasPrefix(name, ".") || name == "node_modules") {
					return filepath.SkipDir
				}
				return nil
			}
			l := s.Languages.Claims(p)
			if l == nil || !e.Type().IsRegular() {
				return nil
			}
			if n++; n > MaxFiles {
				return errTooMany
			}
			pkg := packageOf(p, l)
			key := path.Join(strings.ReplaceAll(pkg, ".", "/"), filepath.Base(p))
			if _, dup := ix.files[key]; !dup {
				if abs, err := filepath.Abs(p); err == nil {
					p = abs
				}
				ix.files[key] = p
			}
			return nil
		})
		if errors.Is(err, errTooMany) || ctx.Err() != nil {
			break // what is indexed so far is used
		}
		if err != nil {
			return nil, err
		}
	}
	return ix, nil
}

var errTooMany = errors.New("too many files")

// packageOf reads the package a source file declares, as its language
// reads it from the file's head ("" for the default package).
func packageOf(p string, l lang.Language) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, headBytes)
	n, _ := io.ReadFull(bufio.NewReader(f), head)
	return l.Package(head[:n])
}

// Find returns where a source is, by its package path and file name
// ("java/lang/String.java"; "Main.java" in the default package).
func (ix *Index) Find(key string) (Found, bool) {
	if p, ok := ix.files[key]; ok {
		return Found{Path: p}, true
	}
	for _, a := range ix.archives {
		if ent, ok := a.lookup(key, ix.langs); ok {
			return Found{Archive: a.path, Entry: ent}, true
		}
	}
	return Found{}, false
}

// lookup opens the archive's table of contents once: entries by package
// path, with a module folder (java.base/java/lang/String.java) or a src/
// prefix dropped.
func (a *archive) lookup(key string, langs lang.Set) (string, bool) {
	a.once.Do(func() {
		r, err := zip.OpenReader(a.path)
		if err != nil {
			a.err = err
			return
		}
		defer r.Close()
		a.ents = map[string]string{}
		for _, f := range r.File {
			if langs.Claims(f.Name) == nil {
				continue
			}
			a.ents[f.Name] = f.Name
			if i := strings.IndexByte(f.Name, '/'); i > 0 {
				if _, ok := a.ents[f.Name[i+1:]]; !ok {
					a.ents[f.Name[i+1:]] = f.Name
				}
			}
		}
	})
	ent, ok := a.ents[key]
	return ent, ok
}

// Read returns the text of a found source, at most MaxEntry bytes.
func Read(f Found) ([]byte, error) {
	if f.Path != "" {
		file, err := os.Open(f.Path)
		if err != nil {
			return nil, err
		}
		defer file.Close()
		return io.ReadAll(io.LimitReader(file, MaxEntry))
	}
	r, err := zip.OpenReader(f.Archive)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for _, e := range r.File {
		if e.Name != f.Entry {
			continue
		}
		if e.UncompressedSize64 > MaxEntry {
			return nil, fmt.Errorf("%s in %s is %d bytes, more than %d", f.Entry, f.Archive, e.UncompressedSize64, MaxEntry)
		}
		rc, err := e.Open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return io.ReadAll(io.LimitReader(rc, MaxEntry))
	}
	return nil, fmt.Errorf("%s has no entry %s", f.Archive, f.Entry)
}

// JDKSources returns the lib/src.zip of the JDKs a local VM may run on:
// the java executable's (javaExec, else $JAVA_HOME, else java on $PATH).
func JDKSources(javaExec string) []string {
	var homes []string
	if javaExec != "" {
		if p, err := exec.LookPath(javaExec); err == nil {
			javaExec = p
		}
		homes = append(homes, homeOf(javaExec))
	}
	if h := os.Getenv("JAVA_HOME"); h != "" {
		homes = append(homes, h)
	}
	if p, err := exec.LookPath("java"); err == nil {
		homes = append(homes, homeOf(p))
	}
	var out []string
	for _, h := range homes {
		if h == "" {
			continue
		}
		if z := filepath.Join(h, "lib", "src.zip"); fileExists(z) {
			out = append(out, z)
		}
	}
	return out
}

// JDKSourcesAt returns the lib/src.zip of the JDK at home (a VM's
// java.home), if it has one.
func JDKSourcesAt(home string) []string {
	if z := filepath.Join(home, "lib", "src.zip"); home != "" && fileExists(z) {
		return []string{z}
	}
	return nil
}

// homeOf is the JDK home of a java executable (symlinks resolved).
func homeOf(java string) string {
	if r, err := filepath.EvalSymlinks(java); err == nil {
		java = r
	}
	return filepath.Dir(filepath.Dir(java))
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
