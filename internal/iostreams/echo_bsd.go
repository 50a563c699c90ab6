//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package iostreams

import "golang.org/x/sys/unix"

const getTermios, setTermios = unix.TIOCGETA, unix.TIOCSETA
