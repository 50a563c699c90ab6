//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package iostreams

import "golang.org/x/sys/unix"

// echoOff stops the terminal on fd echoing what is typed, leaving the rest
// of its settings (lines, signals) as they are.
func echoOff(fd int) error {
	t, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return err
	}
	t.Lflag &^= unix.ECHO
	return unix.IoctlSetTermios(fd, setTermios, t)
}
