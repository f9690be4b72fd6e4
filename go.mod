module github.com/ddmbridge/ddmbridge

go 1.24

require (
	github.com/google/go-dap v0.12.0
	github.com/rs/zerolog v1.35.1
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
	github.com/sourcegraph/jsonrpc2 v0.2.3
	golang.org/x/sys v0.29.0
)

require (
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	golang.org/x/text v0.14.0 // indirect
)
