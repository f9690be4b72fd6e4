// Package longreq is a DAP session's long requests: cancellation (the
// cancel request reaches a request being handled or still queued; its
// error then says "cancelled", as DAP prescribes) and progress reports
// (progressStart/Update/End, cancellable when they belong to a request).
// It owns cancellation and progress and must not touch anything but
// go-dap's messages; package dap says which work is long.
package longreq
