package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/paycli/paycli/internal/app"
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
)

// The folders gendocs owns. Everything in them is generated; a file gendocs
// did not write this time is stale and is removed.
const (
	completionsDir = "completions"
	referenceDir   = "docs/reference"
	manDir         = "docs/man"
)

func ownedDirs() []string { return []string{completionsDir, referenceDir, manDir} }

// manSection is the man section of every page: user commands.
const manSection = "1"

// manDate is the date in every man page's header. It is fixed rather than
// today's so that regenerating writes the same bytes and CI can compare.
func manDate() time.Time { return time.Date(2026, time.November, 1, 0, 0, 0, 0, time.UTC) }

// Files maps a slash-separated path, relative to the repository root, to
// the content gendocs generates for it.
type Files map[string][]byte

// add records a file, refusing a second page under the same name
// ("paycli a b-c" and "paycli a-b c" would both be paycli-a-b-c.1).
func (f Files) add(path string, data []byte) error {
	if _, dup := f[path]; dup {
		return fmt.Errorf("two pages would be written to %s: rename one of the commands", path)
	}
	f[path] = data
	return nil
}

// Generate renders everything gendocs writes. newTree must return a fresh
// command tree on each call: cobra/doc changes the commands it documents
// (it adds the help flag and command), and the man pages need their own
// escaping.
func Generate(newTree func() *cobra.Command) (Files, error) {
	files := Files{}
	if err := addCompletions(files, newTree()); err != nil {
		return nil, err
	}
	if err := addReference(files, newTree()); err != nil {
		return nil, err
	}
	if err := addManPages(files, newTree()); err != nil {
		return nil, err
	}
	return files, nil
}

// CompletionFiles names the completion script of each shell in
// completions/. The packages install them under the names each shell's
// loader looks for (see .goreleaser.yaml).
func CompletionFiles(name string) map[string]string {
	return map[string]string{
		"bash":       name + ".bash",
		"zsh":        "_" + name,
		"fish":       name + ".fish",
		"powershell": name + ".ps1",
	}
}

func addCompletions(files Files, root *cobra.Command) error {
	names := CompletionFiles(root.Name())
	for _, shell := range app.CompletionShells() {
		file, ok := names[shell]
		if !ok {
			return fmt.Errorf("no file name for the %s completion: add one to CompletionFiles", shell)
		}
		// The same writer as `paycli completion SHELL`, so the committed
		// scripts are exactly what the binary prints.
		var buf bytes.Buffer
		if err := app.WriteCompletion(context.Background(), root, shell, &buf); err != nil {
			return fmt.Errorf("%s completion: %w", shell, err)
		}
		if err := files.add(path.Join(completionsDir, file), buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// Pages are the parts of a tree that get a page each: commands a user can
// run or that group others (what cobra/doc documents), and help topics
// (`paycli help exit-codes`), which cobra/doc skips. Hidden and deprecated
// commands, and cobra's own help command, get none.
type Pages struct {
	Commands []*cobra.Command
	Topics   []*cobra.Command
}

// Collect walks the tree, parents before children, siblings by name.
func Collect(root *cobra.Command) Pages {
	var p Pages
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		switch {
		case c.IsAdditionalHelpTopicCommand():
			p.Topics = append(p.Topics, c)
			return
		case c != root && !c.IsAvailableCommand():
			return
		}
		p.Commands = append(p.Commands, c)
		children := slices.Clone(c.Commands())
		slices.SortFunc(children, func(a, b *cobra.Command) int { return strings.Compare(a.Name(), b.Name()) })
		for _, child := range children {
			visit(child)
		}
	}
	visit(root)
	return p
}

// ReferenceFile and ManFile name a command's pages the way cobra/doc links
// them: "paycli hash generate" is paycli_hash_generate.md and
// paycli-hash-generate.1.
func ReferenceFile(c *cobra.Command) string {
	return path.Join(referenceDir, strings.ReplaceAll(c.CommandPath(), " ", "_")+".md")
}

func ManFile(c *cobra.Command) string {
	return path.Join(manDir, manName(c)+"."+manSection)
}

func manName(c *cobra.Command) string { return strings.ReplaceAll(c.CommandPath(), " ", "-") }

// topicUse is how a help topic is invoked: `paycli help exit-codes`.
func topicUse(t *cobra.Command) string {
	return t.Root().Name() + " help " + strings.TrimPrefix(t.CommandPath(), t.Root().Name()+" ")
}

func addReference(files Files, root *cobra.Command) error {
	pages := Collect(root)
	prepareText(root)
	for _, c := range pages.Commands {
		var buf bytes.Buffer
		if err := doc.GenMarkdownCustom(c, &buf, func(s string) string { return s }); err != nil {
			return fmt.Errorf("reference page of %q: %w", c.CommandPath(), err)
		}
		if c == root && len(pages.Topics) > 0 {
			buf.WriteString("### Help topics\n\n")
			for _, t := range pages.Topics {
				fmt.Fprintf(&buf, "* [%s](%s)\t - %s\n", topicUse(t), path.Base(ReferenceFile(t)), t.Short)
			}
			buf.WriteString("\n")
		}
		if err := files.add(ReferenceFile(c), buf.Bytes()); err != nil {
			return err
		}
	}
	for _, t := range pages.Topics {
		var buf bytes.Buffer
		fmt.Fprintf(&buf, "## %s\n\n%s\n\n", topicUse(t), t.Short)
		if t.Long != "" {
			fmt.Fprintf(&buf, "### Synopsis\n\n%s\n\n", t.Long)
		}
		parent := t.Parent()
		fmt.Fprintf(&buf, "### SEE ALSO\n\n* [%s](%s)\t - %s\n\n", parent.CommandPath(), path.Base(ReferenceFile(parent)), parent.Short)
		if err := files.add(ReferenceFile(t), buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

func addManPages(files Files, root *cobra.Command) error {
	pages := Collect(root)
	prepareText(root)
	escapeForMan(root)
	for _, c := range pages.Commands {
		date := manDate()
		header := &doc.GenManHeader{Section: manSection, Date: &date, Source: root.Name(), Manual: root.Name() + " manual"}
		var buf bytes.Buffer
		if err := doc.GenMan(c, header, &buf); err != nil {
			return fmt.Errorf("man page of %q: %w", c.CommandPath(), err)
		}
		if c == root && len(pages.Topics) > 0 {
			// Appended as roff: the page cobra/doc rendered ends with its
			// SEE ALSO section, and a new section may follow it.
			names := make([]string, len(pages.Topics))
			for i, t := range pages.Topics {
				names[i] = fmt.Sprintf(`\fB%s(%s)\fP`, manName(t), manSection)
			}
			fmt.Fprintf(&buf, ".SH HELP TOPICS\n.PP\n%s\n", strings.Join(names, ", "))
		}
		if err := files.add(ManFile(c), buf.Bytes()); err != nil {
			return err
		}
	}
	for _, t := range pages.Topics {
		// The same layout cobra/doc gives a command, without options.
		var md strings.Builder
		fmt.Fprintf(&md, "%% \"%s\" \"%s\" \"%s\" \"%s\" \"%s\"\n", strings.ToUpper(strings.ReplaceAll(t.CommandPath(), " ", `\-`)),
			manSection, manDate().Format("Jan 2006"), root.Name(), root.Name()+" manual")
		fmt.Fprintf(&md, "# NAME\n%s \\- %s\n\n", manName(t), t.Short)
		fmt.Fprintf(&md, "# SYNOPSIS\n**%s**\n\n", topicUse(t))
		if t.Long != "" {
			fmt.Fprintf(&md, "# DESCRIPTION\n%s\n\n", t.Long)
		}
		fmt.Fprintf(&md, "# SEE ALSO\n**%s(%s)**\n", manName(t.Parent()), manSection)
		if err := files.add(ManFile(t), md2man.Render([]byte(md.String()))); err != nil {
			return err
		}
	}
	return nil
}

// prepareText turns the tree's help texts, written for a terminal, into
// Markdown that reads the same: runs of indented lines (tables, examples)
// become code blocks instead of being reflowed into a paragraph, and angle
// brackets in prose are escaped so that "<user config dir>" is not taken
// for an HTML tag and dropped. It also turns off cobra's dated
// "Auto generated" footer.
func prepareText(c *cobra.Command) {
	c.DisableAutoGenTag = true
	c.Short = escapeAngles(c.Short)
	c.Long = markdownText(c.Long)
	for _, child := range c.Commands() {
		prepareText(child)
	}
}

// escapeForMan escapes the texts that cobra/doc puts into a man page's
// Markdown outside code blocks: the usage line and the flags' help.
// Inherited flags are the parent's *pflag.Flag values, so each flag is
// escaped once.
func escapeForMan(root *cobra.Command) {
	seen := map[*pflag.Flag]bool{}
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		c.Use = escapeAngles(c.Use)
		escapeFlag := func(f *pflag.Flag) {
			if !seen[f] {
				seen[f] = true
				f.Usage = escapeAngles(f.Usage)
			}
		}
		c.Flags().VisitAll(escapeFlag)
		c.PersistentFlags().VisitAll(escapeFlag)
		for _, child := range c.Commands() {
			visit(child)
		}
	}
	visit(root)
}

func escapeAngles(s string) string {
	return strings.NewReplacer("<", `\<`, ">", `\>`).Replace(s)
}

// markdownText converts a terminal help text to Markdown: indented runs of
// lines (blank lines inside a run included) become fenced code blocks, kept
// verbatim; other lines have their angle brackets escaped.
func markdownText(s string) string {
	if s == "" {
		return s
	}
	lines := strings.Split(s, "\n")
	indented := func(l string) bool { return strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") }
	var out []string
	for i := 0; i < len(lines); {
		if !indented(lines[i]) {
			out = append(out, escapeAngles(lines[i]))
			i++
			continue
		}
		// The run ends at the last indented line before a non-indented one.
		end := i
		for j := i; j < len(lines); j++ {
			if indented(lines[j]) {
				end = j + 1
			} else if strings.TrimSpace(lines[j]) != "" {
				break
			}
		}
		if len(out) > 0 && out[len(out)-1] != "" {
			out = append(out, "")
		}
		out = append(out, "```")
		out = append(out, lines[i:end]...)
		out = append(out, "```")
		if end < len(lines) && lines[end] != "" {
			out = append(out, "")
		}
		i = end
	}
	return strings.Join(out, "\n")
}

// Write brings the owned folders under dir to exactly files: it writes the
// files whose content differs (leaving the others untouched) and removes
// every other file in those folders.
func Write(dir string, files Files) error {
	for p := range files {
		if !slices.Contains(ownedDirs(), path.Dir(p)) {
			return fmt.Errorf("generated file %s is outside the folders gendocs owns", p)
		}
	}
	for _, d := range ownedDirs() {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
			return err
		}
	}
	for p, data := range files {
		target := filepath.Join(dir, filepath.FromSlash(p))
		if old, err := os.ReadFile(target); err == nil && bytes.Equal(old, data) {
			continue
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			return err
		}
	}
	for _, d := range ownedDirs() {
		entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(d)))
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := path.Join(d, e.Name())
			if _, ok := files[p]; ok {
				continue
			}
			if e.IsDir() {
				return fmt.Errorf("%s: a folder inside %s, which gendocs owns: move it elsewhere", p, d)
			}
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
				return err
			}
		}
	}
	return nil
}
