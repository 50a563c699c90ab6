// Package filelock is the one exclusive lock on an open file that other
// processes see: flock(2) on unix, LockFileEx on Windows, none elsewhere.
// The config file's writers and the journal's invoice locks both take it.
package filelock
