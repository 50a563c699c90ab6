package journal

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestShortWriteLeavesNothing: an append cut short by a file-size limit
// (a full disk) after all of its line but the newline must not leave that
// piece behind, or the next append would mend it into a whole intent whose
// request was never sent (found by the chaos soak).
func TestShortWriteLeavesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	first := Entry{Type: TypeIntent, Kind: "walletpay", Attempt: "a1", Invoice: "INV-1"}
	if err := j.Append(first); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := Entry{Type: TypeIntent, Kind: "walletpay", Attempt: "a2", Invoice: "INV-2"}
	line, _ := json.Marshal(cut)

	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	limited := old
	limited.Cur = uint64(info.Size()) + uint64(len(line)) // room for all but the newline
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limited); err != nil {
		t.Skipf("cannot set a file-size limit: %v", err)
	}
	err = j.Append(cut)
	if rerr := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); rerr != nil {
		t.Fatal(rerr)
	}
	if err == nil {
		t.Fatal("an append past the file-size limit succeeded")
	}
	if after, _ := os.Stat(path); after.Size() != info.Size() {
		t.Fatalf("the failed append left %d bytes", after.Size()-info.Size())
	}
	if err := j.Append(Entry{Type: TypeIntent, Kind: "walletpay", Attempt: "a3", Invoice: "INV-3"}); err != nil {
		t.Fatal(err)
	}
	attempts, _, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range attempts {
		if a.Intent.Attempt == "a2" {
			t.Fatalf("the cut-short intent came back as an attempt: %+v", attempts)
		}
	}
	if len(attempts) != 2 {
		t.Fatalf("attempts %+v, want a1 and a3", attempts)
	}
}
