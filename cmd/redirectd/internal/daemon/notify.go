package daemon

import (
	"net"
	"os"
)

// sdNotify sends a state to systemd's notify socket (sd_notify(3)): one
// datagram on the unix socket named by $NOTIFY_SOCKET, '@' meaning the
// abstract namespace. Without the variable (not run by systemd with
// Type=notify) it does nothing.
func sdNotify(state string) error {
	name := os.Getenv("NOTIFY_SOCKET")
	if name == "" {
		return nil
	}
	if name[0] == '@' {
		name = "\x00" + name[1:]
	}
	c, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Write([]byte(state))
	return err
}
