// Package ddmalloc is DDM's allocation tracker (REAE, REAL) as package
// debugger's AllocTracker, for a DAP session's memory view: it turns the
// VM's tracker on and off, reads its records and names the thread of each
// from the DDM client's thread model. The names come from THEN: while the
// tracker is on it holds one names watch on the VM's feed (ddm.Feed), which
// keeps THEN on without the THST poll of a threads watcher and without
// turning it off under the feed's other users (the monitor, the session's
// ddmThreads events). It owns the tracker's use and the naming of its
// records; it knows packages ddm and debugger and must not touch DAP or
// the simulator (whether the VM is simulated it reads in package ddm);
// package dap makes one per session and closes it at the session's end.
package ddmalloc
