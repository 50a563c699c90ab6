package pgjournal

import (
	"net"
	"net/url"
	"strings"

	"github.com/paycli/paycli/internal/journal"
)

// SandboxProfile is the profile name sandbox-mode lines carry
// (sandboxmode.Profile).
const SandboxProfile = "sandbox"

// IsSandboxLine reports whether e is a line of the sandbox, by its own
// fields, as the database's CHECK journal_lines_not_sandbox decides: its
// gateway identity says so ("sandbox-…"), or it is a line of an older
// paycli (whose sandbox identity was an unprefixed hash) made under the
// sandbox's profile name at a loopback address, where the in-process
// emulator listens. Whose machine reads it does not matter.
func IsSandboxLine(e journal.Entry) bool {
	if strings.HasPrefix(e.Gateway, "sandbox-") {
		return true
	}
	if e.Profile != SandboxProfile {
		return false
	}
	u, err := url.Parse(e.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback() && (ip.To4() != nil || host == "::1")
}
