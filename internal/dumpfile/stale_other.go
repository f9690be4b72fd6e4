//go:build !linux

package dumpfile

import "os"

// NoteFile notes nothing: the journal of partial dumps needs Linux's /proc.
func NoteFile(f *os.File, path string) Note { return Note{} }

// NoteDir notes nothing (see NoteFile).
func NoteDir(dir *os.File, path string, writer int, vmPath string) Note { return Note{} }

// CleanStale removes nothing (see NoteFile).
func CleanStale() ([]string, error) { return nil, nil }

// Private returns a new file in dir (the temp dir if "") whose name is
// removed at once.
func Private(dir string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	return privateByName(dir)
}

func (n Note) drop() {}
