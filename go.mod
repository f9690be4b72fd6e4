module github.com/ddmbridge/ddmbridge

go 1.24

require (
	github.com/google/go-dap v0.12.0
	github.com/rs/zerolog v1.35.1
	github.com/sourcegraph/jsonrpc2 v0.2.3
	golang.org/x/sys v0.29.0
)

require (
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
)
