package hprof

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// createTemp makes the spill file without a name (O_TMPFILE, mode 0600):
// no moment when a process killed outright (SIGKILL) leaves a file behind.
// Where the filesystem or the kernel refuses O_TMPFILE it makes a named one
// (createNamed), removed at once by the caller; named says which.
func createTemp(dir string) (f *os.File, named bool, err error) {
	if dir == "" {
		dir = os.TempDir()
	}
	for {
		fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), filepath.Join(dir, "(unnamed)")), false, nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.EISDIR), errors.Is(err, unix.EINVAL):
			// EOPNOTSUPP: the filesystem has no unnamed files; EISDIR,
			// EINVAL: a kernel before 3.11 (O_TMPFILE is O_DIRECTORY and
			// a bit it does not know).
			return createNamed(dir)
		default:
			return nil, false, &os.PathError{Op: "open (O_TMPFILE)", Path: dir, Err: err}
		}
	}
}
