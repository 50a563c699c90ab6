package cmdutil

import (
	"net"
	"strconv"
	"strings"

	"github.com/paycli/paycli/internal/config"
)

// CheckListenAddr checks the --addr of a command that listens: host:port,
// the port a number from 0 to 65535 (0 picks a free one), or a usage error
// quoting it, with example as the right form. A port out of range is a
// typo, not a busy address: it is said before trying to listen.
func CheckListenAddr(addr, example string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return UsageErrorf("invalid --addr %q: want host:port, e.g. %s", config.Shorten(addr), example)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil && port != "" {
		return UsageErrorf("invalid --addr %q: the port must be a number from 0 to 65535 (0 picks a free one)", config.Shorten(addr))
	}
	return nil
}

// LoopbackOnly reports whether a listen address ("host:port") only
// accepts connections from this machine; a command listens elsewhere only
// with --public.
func LoopbackOnly(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
