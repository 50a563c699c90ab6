package app_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/paycli/paycli/internal/app"
	"github.com/paycli/paycli/internal/hashkey"
	"github.com/paycli/paycli/internal/iostreams"
)

// markedBlock returns the lines of a docs page between "<!-- NAME:begin"
// and "<!-- NAME:end -->", the tables that tests keep in step with the code.
func markedBlock(t *testing.T, page, name string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(docsDir, page))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	_, after, ok := strings.Cut(text, "<!-- "+name+":begin")
	if !ok {
		t.Fatalf("docs/%s: no <!-- %s:begin --> marker", page, name)
	}
	_, after, _ = strings.Cut(after, "-->\n")
	block, _, ok := strings.Cut(after, "<!-- "+name+":end -->")
	if !ok {
		t.Fatalf("docs/%s: no <!-- %s:end --> marker", page, name)
	}
	return strings.Split(strings.TrimRight(block, "\n"), "\n")
}

// TestExitCodesDocMatchesTopic keeps docs/exit-codes.md's table and
// `paycli help exit-codes` in step: the same codes, in the same order, each
// meaning in the page starting as the topic's does, and every exit code
// constant documented in both.
func TestExitCodesDocMatchesTopic(t *testing.T) {
	ios, _, out, errOut := iostreams.Test()
	if code := app.Run(t.Context(), []string{"help", "exit-codes"}, ios, func(string) (string, bool) { return "", false }); code != 0 {
		t.Fatalf("help exit-codes: exit %d: %s", code, errOut)
	}
	// The topic: "  CODE  meaning" with continuation lines indented further.
	type entry struct {
		code    int
		meaning string
	}
	var topic []entry
	codeLine := regexp.MustCompile(`^  (\d+)\s+(.*)$`)
	for _, line := range strings.Split(out.String(), "\n") {
		if m := codeLine.FindStringSubmatch(line); m != nil {
			code, _ := strconv.Atoi(m[1])
			topic = append(topic, entry{code, m[2]})
			continue
		}
		if strings.HasPrefix(line, "       ") && len(topic) > 0 {
			topic[len(topic)-1].meaning += " " + strings.TrimSpace(line)
			continue
		}
	}

	var doc []entry
	for _, row := range markedBlock(t, "exit-codes.md", "exit-codes") {
		cells := strings.Split(row, "|")
		if len(cells) < 4 {
			continue
		}
		code, err := strconv.Atoi(strings.TrimSpace(cells[1]))
		if err != nil {
			continue // the header and its rule
		}
		doc = append(doc, entry{code, strings.TrimSpace(cells[2])})
	}

	if len(doc) != len(topic) {
		t.Fatalf("docs/exit-codes.md lists %d codes, `paycli help exit-codes` %d:\npage  %v\ntopic %v", len(doc), len(topic), doc, topic)
	}
	for i := range topic {
		if doc[i].code != topic[i].code {
			t.Errorf("row %d: docs/exit-codes.md has code %d, the topic %d", i+1, doc[i].code, topic[i].code)
			continue
		}
		if !strings.HasPrefix(topic[i].meaning, doc[i].meaning) {
			t.Errorf("code %d: docs/exit-codes.md says %q, the topic %q", doc[i].code, doc[i].meaning, topic[i].meaning)
		}
	}

	documented := map[int]bool{}
	for _, e := range topic {
		documented[e.code] = true
	}
	for _, code := range []int{app.ExitOK, app.ExitError, app.ExitUsage, app.ExitAuth, app.ExitRejected,
		app.ExitDeclined, app.ExitDuplicate, app.ExitOutcomeUnknown, app.ExitUnavailable, app.ExitInterrupted, 141} {
		if !documented[code] {
			t.Errorf("exit code %d is not documented", code)
		}
	}
}

// TestHashLayoutsDocMatchesTable keeps docs/hash-keys.md's layouts table in
// step with hashkey.Layouts; on a difference it prints the table to paste.
func TestHashLayoutsDocMatchesTable(t *testing.T) {
	var want bytes.Buffer
	want.WriteString("| layout | fields, in order | amounts | used for |\n|---|---|---|---|\n")
	for _, l := range hashkey.Layouts {
		want.WriteString("| `" + l.Name + "` | `" + strings.Join(l.Fields, `\|`) + "` | " +
			strings.Join(l.Amounts, ", ") + " | " + l.Help + " |\n")
	}
	got := strings.Join(markedBlock(t, "hash-keys.md", "layouts"), "\n") + "\n"
	if got != want.String() {
		t.Errorf("docs/hash-keys.md's layouts table differs from hashkey.Layouts; it should read:\n%s", want.String())
	}
}
