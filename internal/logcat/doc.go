// Package logcat is an Android device log's lines as both sides of the
// project see them: the line of `logcat -v threadtime` (parsed and written
// back), logcat's levels, a subscriber's filter (lowest level, tags) and
// the batch a subscriber is handed (the lines, and how many were dropped
// before them). bridge/adb reads the lines from a device and bridge
// follows an app's log with them; dap turns the batches into a debug
// session's output events.
//
// It owns these types and their text form and nothing else; it must not do
// I/O or know adb or DAP.
package logcat
