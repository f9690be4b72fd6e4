// Package launchcfg is the launch and attach configurations a debug client
// sends (in VS Code, a launch.json configuration): their fields, whose
// comments are the user documentation, decoding that names the field that
// is wrong, and the checks that can be made before anything starts.
//
// It owns the configurations' fields and checks, and must not touch
// sessions, JDWP or DAP messages; package dap decodes a
// request's arguments with it, and the monitor checks an editor's
// configuration with Check before a session starts.
package launchcfg
