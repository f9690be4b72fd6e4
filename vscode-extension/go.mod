// This file only keeps `go build/vet/test ./...` at the repository root out
// of the extension: some npm packages in node_modules ship .go files (e.g.
// flatted), and a nested module boundary hides them from the root module.
module github.com/ddmbridge/ddmbridge/vscode-extension

go 1.24
