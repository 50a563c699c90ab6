package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// File is the parsed config file.
type File struct {
	Path           string
	Exists         bool
	DefaultProfile string
	Profiles       map[string]map[string]string
	// Mode is the file's permission bits, when it exists.
	Mode fs.FileMode

	data  []byte
	lines map[[2]string]int // (profile, key) → line of the value
}

// lineOf is the line of a profile's key in the file, 0 when unknown.
func (f *File) lineOf(profile, key string) int {
	if f == nil {
		return 0
	}
	return f.lines[[2]string{profile, key}]
}

// fileShape is the YAML document; unknown keys are errors so that a typo is
// not silently ignored.
type fileShape struct {
	DefaultProfile string                       `yaml:"default_profile"`
	Profiles       map[string]map[string]string `yaml:"profiles"`
}

// FileError is a config file that cannot be read or parsed.
type FileError struct {
	Path string
	Line int // 0 when unknown
	Err  error
}

func (e *FileError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("config file %s, line %d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("config file %s: %v", e.Path, e.Err)
}
func (e *FileError) Unwrap() error { return e.Err }

// ReadFile reads and checks the config file at path. A missing file is not
// an error: it yields an empty File with Exists false.
func ReadFile(path string) (*File, error) {
	f := &File{Path: path, Profiles: map[string]map[string]string{}}
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	if info.IsDir() {
		return nil, &FileError{Path: path, Err: errors.New("is a folder, not a file")}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	f.Exists, f.Mode = true, info.Mode().Perm()
	if err := f.parse(data); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *File) parse(data []byte) error {
	doc, err := decodeDocument(f.Path, data)
	if err != nil {
		return err
	}
	if doc.Kind == 0 { // empty file
		return nil
	}
	if err := checkNode(f.Path, doc); err != nil {
		return err
	}
	var shape fileShape
	if err := doc.Decode(&shape); err != nil {
		return yamlError(f.Path, err)
	}
	f.data, f.lines = data, keyLines(doc)
	f.DefaultProfile = shape.DefaultProfile
	for name, values := range shape.Profiles {
		if values == nil {
			values = map[string]string{}
		}
		f.Profiles[name] = values
	}
	return nil
}

// decodeDocument parses the file's one YAML document. A second document
// is refused rather than ignored: its settings would silently not apply.
func decodeDocument(path string, data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, syntaxError(path, data, err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
		return &doc, nil
	case err != nil:
		return nil, syntaxError(path, data, err)
	}
	return nil, &FileError{Path: path, Line: next.Line, Err: errors.New("a second YAML document starts here; a config file holds one (remove the '---' line and merge the profiles)")}
}

// checkDuplicates reports a key that a mapping holds twice: YAML forbids
// it, and which value would apply is not obvious.
func checkDuplicates(path string, m *yaml.Node, where string) error {
	seen := make(map[string]int, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if first, ok := seen[k.Value]; ok {
			return &FileError{Path: path, Line: k.Line, Err: fmt.Errorf("duplicate key %q%s (first at line %d)", Shorten(k.Value), where, first)}
		}
		seen[k.Value] = k.Line
	}
	return nil
}

// checkNode walks the document and reports the first unknown key or
// misplaced value with its line.
func checkNode(path string, doc *yaml.Node) error {
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return &FileError{Path: path, Line: root.Line, Err: errors.New("expected a mapping with default_profile and profiles")}
	}
	if err := checkDuplicates(path, root, ""); err != nil {
		return err
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "default_profile":
			if v.Kind != yaml.ScalarNode {
				return &FileError{Path: path, Line: v.Line, Err: errors.New("default_profile must be a name")}
			}
		case "profiles":
			if err := checkProfiles(path, v); err != nil {
				return err
			}
		default:
			return &FileError{Path: path, Line: k.Line, Err: fmt.Errorf("unknown key %q (expected default_profile or profiles)", Shorten(k.Value))}
		}
	}
	return nil
}

func checkProfiles(path string, n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return &FileError{Path: path, Line: n.Line, Err: errors.New("profiles must be a mapping of profile names")}
	}
	if err := checkDuplicates(path, n, " in profiles"); err != nil {
		return err
	}
	folded := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if first, ok := folded[strings.ToLower(k.Value)]; ok {
			return &FileError{Path: path, Line: k.Line, Err: fmt.Errorf("profile %q differs from the one at line %d only in letter case; profile names are compared without it", Shorten(k.Value), first)}
		}
		folded[strings.ToLower(k.Value)] = k.Line
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, body := n.Content[i], n.Content[i+1]
		if err := ValidateProfileName(name.Value); err != nil {
			return &FileError{Path: path, Line: name.Line, Err: err}
		}
		if body.Kind == yaml.ScalarNode && body.Tag == "!!null" {
			continue
		}
		if body.Kind != yaml.MappingNode {
			return &FileError{Path: path, Line: body.Line, Err: fmt.Errorf("profile %q must be a mapping of keys", name.Value)}
		}
		if err := checkDuplicates(path, body, fmt.Sprintf(" in profile %q", name.Value)); err != nil {
			return err
		}
		for j := 0; j+1 < len(body.Content); j += 2 {
			key, val := body.Content[j], body.Content[j+1]
			if _, ok := LookupKey(key.Value); !ok {
				return &FileError{Path: path, Line: key.Line, Err: fmt.Errorf("unknown key %q in profile %q (known: %s)", Shorten(key.Value), name.Value, strings.Join(KeyNames(), ", "))}
			}
			if val.Kind != yaml.ScalarNode {
				return &FileError{Path: path, Line: val.Line, Err: fmt.Errorf("%s in profile %q must be a single value", key.Value, name.Value)}
			}
		}
	}
	return nil
}

// keyLines maps each profile's keys to the line of their values, for
// errors about a value that came from the file.
func keyLines(doc *yaml.Node) map[[2]string]int {
	lines := map[[2]string]int{}
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	profiles := lookup(root, "profiles")
	if profiles == nil {
		return lines
	}
	for i := 0; i+1 < len(profiles.Content); i += 2 {
		name, body := profiles.Content[i].Value, profiles.Content[i+1]
		for j := 0; j+1 < len(body.Content); j += 2 {
			lines[[2]string{name, body.Content[j].Value}] = body.Content[j+1].Line
		}
	}
	return lines
}

func yamlError(path string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	// Decoding errors come as "unmarshal errors:" and then one indented
	// "line N: ..." per problem; the first problem is the one to show.
	if head, rest, ok := strings.Cut(msg, "\n"); ok && strings.HasSuffix(head, "errors:") {
		msg = strings.TrimSpace(strings.SplitN(rest, "\n", 2)[0])
	}
	var line int
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr == nil {
		msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
	}
	return &FileError{Path: path, Line: line, Err: errors.New(msg)}
}

// syntaxError is yamlError for the YAML parser's errors, whose line numbers
// yaml.v3 gets wrong in one case: the parser's own errors ("did not find
// expected key", an unclosed "[") count lines from 0, while the scanner's
// count from 1. The line then names where the broken collection starts;
// it is kept within the file for errors found at its end.
func syntaxError(path string, data []byte, err error) error {
	ferr := yamlError(path, err)
	fe, ok := ferr.(*FileError)
	if !ok || !isParserProblem(fe.Err.Error()) {
		return ferr
	}
	fe.Line++
	lines := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		lines++
	}
	if fe.Line > lines && lines > 0 {
		fe.Line = lines
	}
	return fe
}

// isParserProblem recognises the messages of yaml.v3's parser (parserc.go),
// as opposed to its scanner.
func isParserProblem(msg string) bool {
	switch msg {
	case "did not find expected node content",
		"did not find expected key",
		"did not find expected '-' indicator",
		"did not find expected ',' or ']'",
		"did not find expected ',' or '}'",
		"did not find expected <document start>",
		"did not find expected <stream-start>",
		"found duplicate %YAML directive",
		"found duplicate %TAG directive",
		"found incompatible YAML document":
		return true
	}
	return false
}

// ProfileNames returns the profiles in the file, sorted.
func (f *File) ProfileNames() []string {
	names := make([]string, 0, len(f.Profiles))
	for n := range f.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
