// Package hotspot speaks HotSpot's dynamic attach protocol, the mechanism
// behind jcmd and jmap, so the monitor can ask a local HotSpot VM for a heap
// dump without a JDK on its own side.
//
// The protocol (Linux and other Unix systems): the client creates an empty
// file .attach_pid<PID> in the VM's working directory (or /tmp) and sends the
// VM SIGQUIT; the VM's attach listener then starts and creates the Unix socket
// /tmp/.java_pid<PID>. A request is protocol version "1", a command name and
// three arguments, each NUL-terminated; the VM answers with a status line
// (0 = success) followed by the command's output and closes the socket.
//
// Trust (docs/threat-model.md): the VM's working directory and /tmp may be
// another user's to control when the monitor runs as root. The attach file is
// created new (O_EXCL|O_NOFOLLOW, mode 0600, owned by the monitor: HotSpot
// accepts an attach file of its own user or root), so a symlink or a file
// planted at its name is left alone and never chowned, and only the file the
// monitor made is removed. The attach socket's peer must run as the VM's
// user (SO_PEERCRED). The dump directory is made in the VM's /tmp and handed
// to the VM's user through its descriptor (fchown); the dump is opened
// O_NOFOLLOW and must be a regular file of the VM's user; the directory is
// removed through the descriptor of the VM's /tmp, so a dump cut short by the
// VM's death leaves nothing behind.
//
// Limits, documented where users see them: the VM accepts only a peer with
// its own effective uid (or root); the VM must not run
// with -XX:+DisableAttachMechanism; a VM in another mount or pid namespace
// (a container) is reached through /proc/PID/root/tmp and its namespace pid
// (NSpid in /proc/PID/status). JEP 451 (JDK 21) warns about agents loaded
// into a running VM; dumping the heap loads no agent, so it does not apply.
//
// What it owns: the attach handshake, the dumpheap command (DumpHeapTo
// copies the dump to a writer, a file in the kernel, never the whole dump in
// memory) and the one flag a dump needs read with it (CompressedOops), and
// the JSON thread dump of a JDK 21+ VM (ThreadDump: jcmd's
// Thread.dump_to_file -format=json, sent only when the VM's help lists it,
// written into the same kind of private directory, decoded as a stream
// into the platform threads and the virtual threads grouped by stack:
// DecodeThreadDump). What it must
// not touch: JDWP, DDM, HPROF parsing (ddm/hprof) and the monitor's VM list.
//
// It lives in internal, below dap and bridge, because both use it (the
// adapter's and the monitor's heap dumps of local HotSpot VMs) and neither
// may import the other; it imports nothing of the project.
package hotspot
