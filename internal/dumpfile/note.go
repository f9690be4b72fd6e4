package dumpfile

import "os"

// Note is a journal entry of a dump being written (see NoteFile); Done
// drops it. The zero Note (no journal) is usable.
type Note struct{ name string } // its name in the journal

// Done drops the note: the dump it names is finished or removed.
func (n Note) Done() {
	if n.name != "" {
		n.drop()
	}
}

// privateByName is Private by a name removed at once.
func privateByName(dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, "ddmbridge-dump-*.hprof")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return f, nil
}
