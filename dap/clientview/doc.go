// Package clientview applies, in one place, the conventions a DAP client
// chose in initialize. Inside the adapter lines and columns count from 1,
// paths are file system paths, and variables carry their type; a client
// may count lines or columns from 0 (linesStartAt1, columnsStartAt1:
// false), name files by URI (pathFormat "uri"), or not want types
// (supportsVariableType absent). The adapter converts every request as it
// is decoded (View.In) and every message as it is encoded (View.Out), so
// no handler converts anything; opt-in events the client did not ask for
// are dropped there too (View.Drop). The adapter's own message types take
// part through Bodied, PathsIn and PathsOut.
//
// It owns those conversions and must not touch anything but go-dap's
// types: nothing of JDWP, sessions or the VM.
package clientview
