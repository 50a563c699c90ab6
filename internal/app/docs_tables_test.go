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

// TestExitCodesDocMatchesTopic keeps the exit-code tables of
// docs/exit-codes.md and the top-level README.md in step with `paycli help
// exit-codes`: the same codes, in the same order, each meaning in a page
// starting as the topic's does, and every exit code constant documented in
// all three.
func TestExitCodesDocMatchesTopic(t *testing.T) {
	ios, _, out, errOut := iostreams.Test()
	if code := app.Run(t.Context(), []string{"help", "exit-codes"}, ios, func(string) (string, bool) { return "", false }); code != 0 {
		t.Fatalf("help exit-codes: exit %d: %s", code, errOut)
	}
	// The topic: "  CODE  meaning" with continuation lines indented further.
	var topic []exitEntry
	codeLine := regexp.MustCompile(`^  (\d+)\s+(.*)$`)
	for _, line := range strings.Split(out.String(), "\n") {
		if m := codeLine.FindStringSubmatch(line); m != nil {
			code, _ := strconv.Atoi(m[1])
			topic = append(topic, exitEntry{code, m[2]})
			continue
		}
		if strings.HasPrefix(line, "       ") && len(topic) > 0 {
			topic[len(topic)-1].meaning += " " + strings.TrimSpace(line)
			continue
		}
	}

	documented := map[int]bool{}
	for _, e := range topic {
		documented[e.code] = true
	}
	for _, code := range []int{app.ExitOK, app.ExitError, app.ExitUsage, app.ExitAuth, app.ExitRejected,
		app.ExitDeclined, app.ExitDuplicate, app.ExitOutcomeUnknown, app.ExitUnavailable, app.ExitJournalRefused,
		app.ExitCancelled, app.ExitInterrupted, 141} {
		if !documented[code] {
			t.Errorf("exit code %d is not documented", code)
		}
	}

	// The README says its table matches the topic (issue 43: it stopped
	// at 8), so it is held to the same rows.
	for _, page := range []struct{ name, path string }{
		{"docs/exit-codes.md", "exit-codes.md"},
		{"README.md", filepath.Join("..", "README.md")},
	} {
		var doc []exitEntry
		for _, row := range markedBlock(t, page.path, "exit-codes") {
			cells := strings.Split(row, "|")
			if len(cells) < 4 {
				continue
			}
			code, err := strconv.Atoi(strings.TrimSpace(cells[1]))
			if err != nil {
				continue // the header and its rule
			}
			doc = append(doc, exitEntry{code, strings.TrimSpace(cells[2])})
		}
		if len(doc) != len(topic) {
			t.Errorf("%s lists %d codes, `paycli help exit-codes` %d:\npage  %v\ntopic %v", page.name, len(doc), len(topic), doc, topic)
			continue
		}
		for i := range topic {
			if doc[i].code != topic[i].code {
				t.Errorf("row %d: %s has code %d, the topic %d", i+1, page.name, doc[i].code, topic[i].code)
				continue
			}
			if !strings.HasPrefix(topic[i].meaning, doc[i].meaning) {
				t.Errorf("code %d: %s says %q, the topic %q", doc[i].code, page.name, doc[i].meaning, topic[i].meaning)
			}
		}
	}
}

// exitEntry is one exit code and its meaning, as a table or the topic
// gives it.
type exitEntry struct {
	code    int
	meaning string
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
