package ddm

import (
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Attach starts a DDM session on a JDWP connection: VM-initiated command set
// 0xC7 packets go to the returned client (and are never answered, as a DDM
// server must not), and the client sends its greeting. Close the client
// before or after the connection; it does not close the connection.
//
// Whether the VM speaks DDM is the caller's to decide, before: the
// connection sends DDM only after conn.AllowVendorCommands (an adb device's
// VMs are ART; a VM elsewhere says so in VirtualMachine.Version, see
// jdwp.VersionInfo.Android), since HotSpot's agent crashes on command set
// 0xC7. Until then nothing is sent and the client does not speak DDM.
func Attach(conn *jdwp.Conn, opt Options) *Client {
	c := NewClient(conn, opt)
	conn.HandleCommandSet(CommandSet, func(_ *jdwp.Conn, p *jdwp.Packet) { c.HandlePacket(p.ID, p.Cmd, p.Data) })
	conn.HandleLargeCommands(CommandSet, c.HandleLargePacket)
	c.Start()
	return c
}
