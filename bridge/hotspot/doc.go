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
// Limits, documented where users see them: the VM accepts only a peer with
// its own effective uid (or root) — when the monitor runs as root it hands the
// attach file and the dump directory to the VM's user; the VM must not run
// with -XX:+DisableAttachMechanism; a VM in another mount or pid namespace
// (a container) is reached through /proc/PID/root/tmp and its namespace pid
// (NSpid in /proc/PID/status). JEP 451 (JDK 21) warns about agents loaded
// into a running VM; dumping the heap loads no agent, so it does not apply.
//
// What it owns: the attach handshake, the dumpheap command and the one flag
// a dump needs read with it (CompressedOops). What it must
// not touch: JDWP, DDM, HPROF parsing (ddm/hprof) and the monitor's VM list.
package hotspot
