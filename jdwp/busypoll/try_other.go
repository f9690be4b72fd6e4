//go:build !unix

package busypoll

// Elsewhere a Reader reads plainly.
const supported = false

func (r *Reader) try(p []byte) (int, error) { return r.nc.Read(p) }
