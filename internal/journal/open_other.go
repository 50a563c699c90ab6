//go:build !unix

package journal

// oNonblock: there are no FIFOs to guard against in the file system here.
const oNonblock = 0
