// Package buildinfo carries the version stamped into the binary at link time:
//
//	go build -ldflags "-X github.com/paycli/paycli/internal/buildinfo.Version=1.2.3 \
//	  -X github.com/paycli/paycli/internal/buildinfo.Commit=abc123 \
//	  -X github.com/paycli/paycli/internal/buildinfo.Date=2026-11-22T10:00:00Z"
//
// The linker writes these; nothing assigns them at run time.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Set by the linker; empty in a plain `go build` or `go run`.
var (
	Version string
	Commit  string
	Date    string
)

// Info is what `paycli version` reports.
type Info struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Go      string `json:"go"`
}

// Read returns the link-time values, falling back to the module and VCS
// information the Go toolchain records in the binary.
func Read() Info {
	info := Info{Version: Version, Commit: Commit, Date: Date}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		info.Go = bi.GoVersion
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = strings.TrimPrefix(bi.Main.Version, "v")
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if info.Commit == "" {
					info.Commit = s.Value
				}
			case "vcs.time":
				if info.Date == "" {
					info.Date = s.Value
				}
			}
		}
	}
	if info.Version == "" {
		info.Version = "dev"
	}
	if len(info.Commit) > 12 {
		info.Commit = info.Commit[:12]
	}
	return info
}
