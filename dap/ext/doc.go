// Package ext is the adapter's extensions to the Debug Adapter Protocol as
// messages: the arguments and bodies of its custom requests and events
// (the schema an editor's extension reads; docs/dap.md documents them), and
// their registration with a go-dap codec. It owns their shapes and must
// not hold behaviour: package dap handles the requests and sends the
// events.
package ext
