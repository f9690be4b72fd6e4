// Package longreq is a DAP session's long requests: cancellation (the
// cancel request reaches a request being handled or still queued; its
// error then says "cancelled", as DAP prescribes) and progress reports
// (progressStart/Update/End, cancellable when they belong to a request).
// It knows go-dap's messages only; package dap says which work is long.
package longreq
