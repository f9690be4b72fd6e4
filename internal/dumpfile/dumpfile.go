package dumpfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ErrExists is returned by Create for a path that exists when Force is off.
var ErrExists = errors.New("the file exists: heap dumps are written to a new file, never over an existing one")

// ErrNotRegular is returned by Create for a path that is a symlink, a
// directory or anything else than a regular file, even with Force.
var ErrNotRegular = errors.New("it is not a regular file (a symlink, a directory or a device): heap dumps never replace one")

// Options say how Create treats an existing path.
type Options struct {
	// Force replaces an existing regular file. A symlink or a non-regular
	// file at the path is refused all the same.
	Force bool
}

// File is a dump file being written. Write to it, then Commit, or Abort
// on failure; Abort after Commit does nothing, so `defer f.Abort()` is safe.
type File struct {
	*os.File
	path string // where the dump ends up
	tmp  string // with Force: the new file renamed over path by Commit
	done bool
	note Note // in the journal of partial dumps until Commit or Abort
}

// Create creates the file a dump is written to at path: new, mode 0600, not
// through a symlink at path. With o.Force an existing regular file at path
// is replaced when the dump is committed.
func Create(path string, o Options) (*File, error) {
	if path == "" {
		return nil, errors.New("dump file: no path")
	}
	f, err := create(path, o)
	if err != nil {
		return nil, err
	}
	name := f.tmp
	if name == "" {
		name = f.path
	}
	if abs, err := filepath.Abs(name); err == nil {
		f.note = NoteFile(f.File, abs)
	}
	return f, nil
}

// CreateTemp creates a dump's file as Create does, with a new name in the
// temporary directory: ddmbridge-heap-<time>-<random><suffix>.
func CreateTemp(suffix string) (*File, error) {
	var err error
	for range 100 {
		var f *File
		name := filepath.Join(os.TempDir(), fmt.Sprintf("ddmbridge-heap-%d-%d%s", time.Now().UnixMilli(), rand.Uint32(), suffix))
		if f, err = Create(name, Options{}); !errors.Is(err, ErrExists) {
			return f, err
		}
	}
	return nil, err
}

func create(path string, o Options) (*File, error) {
	if !o.Force {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("dump file %s: %w", path, ErrExists)
		}
		if err != nil {
			return nil, fmt.Errorf("dump file: %w", err)
		}
		return &File{File: f, path: path}, nil
	}
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("dump file %s: %w", path, ErrNotRegular)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("dump file: %w", err)
	}
	// CreateTemp opens O_CREATE|O_EXCL with mode 0600.
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("dump file: a new file beside %s: %w", path, err)
	}
	return &File{File: f, path: path, tmp: f.Name()}, nil
}

// Path is where the dump is (once committed).
func (f *File) Path() string { return f.path }

// Commit closes the file and, with Force, puts it in place of the old one.
func (f *File) Commit() error {
	if f.done {
		return errors.New("dump file: already committed or aborted")
	}
	if f.tmp == "" {
		// Complete at its path now: a process killed from here on leaves a
		// whole dump, which no later start may take for a partial one.
		f.note.Done()
	}
	if err := f.File.Close(); err != nil {
		f.Abort()
		return fmt.Errorf("dump file %s: %w", f.path, err)
	}
	if f.tmp != "" {
		// A symlink planted at path meanwhile is replaced, not followed.
		if fi, err := os.Lstat(f.path); err == nil && !fi.Mode().IsRegular() {
			f.Abort()
			return fmt.Errorf("dump file %s: %w", f.path, ErrNotRegular)
		}
		if err := os.Rename(f.tmp, f.path); err != nil {
			f.Abort()
			return fmt.Errorf("dump file %s: %w", f.path, err)
		}
		f.note.Done()
	}
	f.done = true
	return nil
}

// Abort closes and removes what Create made (nothing else: with Force the
// old file stays; without, a file someone put at the path meanwhile stays).
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	mine, serr := f.File.Stat()
	f.File.Close()
	name := f.tmp
	if name == "" {
		name = f.path
	}
	if fi, err := os.Lstat(name); serr == nil && err == nil && os.SameFile(mine, fi) {
		os.Remove(name)
	}
	f.note.Done()
}
