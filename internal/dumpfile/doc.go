// Package dumpfile creates the files heap dumps are written to. A heap dump
// holds whatever the VM held — passwords, keys, tokens — so, as jcmd's
// GC.heap_dump does, a dump file is created new (O_CREAT|O_EXCL), readable
// by its owner only (mode 0600), and never through a symlink (O_NOFOLLOW):
// an existing path is refused with [ErrExists] unless the caller asks to
// replace it. Replacing writes a new 0600 file beside the old one and renames
// it over the old path at the end (rename replaces a symlink, it does not
// follow it), so a failed dump leaves the old file as it was. A dump that
// fails is removed ([File.Abort]), so no partial dump stays behind.
//
// A process killed mid-dump cannot remove its file, so every dump being
// written is noted in a journal of the user's (NoteFile, NoteDir; a 0700
// directory under the user's cache directory) until it is committed or
// aborted, and [CleanStale], when a monitor starts, removes what the notes
// of dead writers name: only the very entry created (same device, inode
// and owner), reached without following a symlink through the very
// directories recorded. The journal itself is reached through descriptors
// and used only when every directory on its way is this user's or root's
// and no one else can rename in it (openJournal). [Private] makes a file
// with no name at all (O_TMPFILE), which nothing can leave behind.
//
// What it owns: creating, committing and removing one output file. What it
// must not touch: where dumps come from (internal/hotspot, the monitor's VMs)
// and what is in them (ddm/hprof).
package dumpfile
