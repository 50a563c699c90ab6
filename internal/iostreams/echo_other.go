//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package iostreams

// echoOff leaves echo to term.ReadPassword where termios is not there to
// turn it off sooner.
func echoOff(int) error { return nil }
