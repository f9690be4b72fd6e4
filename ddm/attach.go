package ddm

import (
	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Attach starts a DDM session on a JDWP connection: VM-initiated command set
// 0xC7 packets go to the returned client (and are never answered, as a DDM
// server must not), and the client sends its greeting. Close the client
// before or after the connection; it does not close the connection.
func Attach(conn *jdwp.Conn, opt Options) *Client {
	c := NewClient(conn, opt)
	conn.HandleCommandSet(CommandSet, func(_ *jdwp.Conn, p *jdwp.Packet) { c.HandlePacket(p.ID, p.Cmd, p.Data) })
	c.Start()
	return c
}
