//go:build !linux

package hprof

import "os"

// createTemp makes the spill file: a named one (createNamed), removed at
// once by the caller where the system lets an open file be removed.
func createTemp(dir string) (f *os.File, named bool, err error) {
	return createNamed(dir)
}
