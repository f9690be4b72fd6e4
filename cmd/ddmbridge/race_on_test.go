//go:build race

package main

// raceEnabled: the race detector multiplies memory (shadow memory per
// allocation), so RSS bounds are not checked under it.
const raceEnabled = true
