package casetest

import (
	"net"
	"strings"

	"github.com/redirectd/redirectd/httpparse"
)

// caseLocation is loc, an answer to a plain-http case sent with Host
// host, as the client the case stands for gets it. With
// absolute_redirect the engine makes a path Location absolute with the
// port its listener has (engine's appendOrigin): here the test server's
// loopback port, drawn at random, which no case file can know. The
// case's URL says which port its client used (its Host's, else 80), so
// that port replaces the test server's, written as the engine writes a
// listener's (none for 80). Any other Location is returned as it is; an
// https:// case needs none of this, as the engine takes the port of the
// Host of a request marked https.
func caseLocation(loc, host, serverAddr string) string {
	_, testPort, err := net.SplitHostPort(serverAddr)
	if err != nil {
		return loc
	}
	name, port := httpparse.SplitHostPort(host)
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	origin := "http://" + name + ":" + testPort
	rest, ok := strings.CutPrefix(loc, origin)
	if !ok || name == "" || rest != "" && !strings.ContainsRune("/?#", rune(rest[0])) {
		return loc
	}
	if port == "" || port == "80" {
		return "http://" + name + rest
	}
	return "http://" + name + ":" + port + rest
}
