package cmdutil

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckListenAddr(t *testing.T) {
	for _, tc := range []struct {
		addr, want string
	}{
		{"127.0.0.1:9000", ""},
		{"127.0.0.1:0", ""},
		{"[::1]:", ""},
		{"127.0.0.1", "want host:port, e.g. 127.0.0.1:9000"},
		{"127.0.0.1:65536", "the port must be a number from 0 to 65535"},
		{"127.0.0.1:http", "the port must be a number from 0 to 65535"},
	} {
		err := CheckListenAddr(tc.addr, "127.0.0.1:9000")
		var ce *Error
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckListenAddr(%q) = %v, want nil", tc.addr, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &ce) || ce.Kind != KindUsage):
			t.Errorf("CheckListenAddr(%q) = %v, want a usage error saying %q", tc.addr, err, tc.want)
		}
	}
}

func TestLoopbackOnly(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:9000": true,
		"[::1]:9000":     true,
		"localhost:9000": true,
		"LocalHost:0":    true,
		"0.0.0.0:9000":   false,
		":9000":          false,
		"10.1.2.3:9000":  false,
		"example.com:80": false,
		"127.0.0.1":      false,
	} {
		if got := LoopbackOnly(addr); got != want {
			t.Errorf("LoopbackOnly(%q) = %v, want %v", addr, got, want)
		}
	}
}
