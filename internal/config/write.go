package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/paycli/paycli/internal/atomicfile"
)

// File and folder modes of everything paycli writes to the config folder.
// The file holds secrets, so only its owner may read it.
const (
	FileMode   fs.FileMode = 0o600
	FolderMode fs.FileMode = 0o700
)

// LooseModeWarning returns the warning to show for a config file whose
// mode lets its group or others read or write it, or "" when the mode is
// tight (or when the platform has no Unix permission bits).
func LooseModeWarning(path string, mode fs.FileMode) string {
	if !IsLooseMode(mode) {
		return ""
	}
	return fmt.Sprintf("warning: %s is readable by others (mode %04o); run: chmod 600 %s", path, mode.Perm(), path)
}

// IsLooseMode reports whether mode gives the file's group or others any
// access. It is always false on Windows, whose files carry no such bits.
func IsLooseMode(mode fs.FileMode) bool {
	return runtime.GOOS != "windows" && mode.Perm()&0o077 != 0
}

// AtomicWriter writes the config file through atomicfile: a reader, or
// the file after a crash, sees either the old content or the new content.
type AtomicWriter struct {
	// BeforeRename, when set, runs after the temporary file is complete and
	// closed, just before the rename (see atomicfile.Writer).
	BeforeRename func(tmpPath string) error
}

// WriteFile writes data to path atomically with mode 0600, creating the
// folder with mode 0700 when it is missing. When path is a symbolic link the
// link's target is replaced and the link kept, so dotfile managers that link
// config.yaml elsewhere keep working.
func (w AtomicWriter) WriteFile(path string, data []byte) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	if err := ensureFolder(filepath.Dir(path)); err != nil {
		return err
	}
	return atomicfile.Writer{Mode: FileMode, BeforeRename: w.BeforeRename}.WriteFile(path, data)
}

// ensureFolder creates dir (and its parents) when missing. A folder paycli
// creates is 0700 whatever the umask; an existing folder is left as it is,
// since PAYCLI_CONFIG may point into a folder the user shares on purpose.
func ensureFolder(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot use folder %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, FolderMode); err != nil {
		return fmt.Errorf("cannot create folder %s: %w", dir, err)
	}
	if err := os.Chmod(dir, FolderMode); err != nil {
		return fmt.Errorf("cannot create folder %s: %w", dir, err)
	}
	return nil
}

// Edit is a config file opened for change. It edits the YAML document's
// nodes rather than re-encoding a struct, so the user's comments and the
// order of profiles and keys survive; only the indentation is normalised
// (two spaces).
type Edit struct {
	// Path is the file the edit will be saved to.
	Path string
	// Before is the file as read, before any change (Exists false when it
	// did not exist).
	Before *File
	doc    *yaml.Node
	unlock func()
}

// OpenEdit locks the config file at path against other writers and reads
// it for editing; Close releases the lock. Reading under the lock is what
// keeps concurrent writers (`config set` on two profiles at once) from
// losing each other's changes. A missing file yields an empty document.
// The file is checked like ReadFile checks it, so a broken file is a
// *FileError and is never overwritten.
func OpenEdit(path string) (*Edit, error) { return openEdit(path, lockWait) }

// openEdit is OpenEdit waiting at most wait for the lock.
func openEdit(path string, wait time.Duration) (_ *Edit, err error) {
	unlock, err := lockFile(path, wait)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	defer func() {
		if err != nil {
			unlock()
		}
	}()
	before, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	var data []byte
	if before.Exists {
		if data, err = os.ReadFile(path); err != nil {
			return nil, &FileError{Path: path, Err: err}
		}
	}
	e, err := newEdit(before, data)
	if err != nil {
		return nil, err
	}
	e.unlock = unlock
	return e, nil
}

// Close releases the edit's lock on the file, saved or not. It may be
// called more than once.
func (e *Edit) Close() {
	if e.unlock != nil {
		e.unlock()
		e.unlock = nil
	}
}

// newEdit parses data, the content of the file that before describes, into
// an Edit.
func newEdit(before *File, data []byte) (*Edit, error) {
	e := &Edit{Path: before.Path, Before: before, doc: &yaml.Node{Kind: yaml.DocumentNode}}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, syntaxError(before.Path, data, err)
	}
	if doc.Kind == yaml.DocumentNode {
		e.doc = &doc
	}
	return e, nil
}

// root returns the top-level mapping, creating it in an empty document.
func (e *Edit) root() *yaml.Node {
	if len(e.doc.Content) == 0 {
		e.doc.Content = []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}
	}
	return e.doc.Content[0]
}

// lookup returns the value node of key in mapping m, or nil.
func lookup(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func strNode(value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
}

// setScalar changes a scalar in place, keeping its comments; a quoting
// style is kept, block styles are dropped (values are single lines).
func setScalar(n *yaml.Node, value string) {
	n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!str", value
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle|yaml.TaggedStyle) != 0 {
		n.Style = 0
	}
}

// mappingIn returns the mapping under key in m, adding it (or replacing a
// null there, keeping that null's comments) when needed. first puts a new
// key at the top of m rather than at the end.
func mappingIn(m *yaml.Node, key string) *yaml.Node {
	if v := lookup(m, key); v != nil {
		if v.Kind != yaml.MappingNode {
			*v = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", HeadComment: v.HeadComment, LineComment: v.LineComment, FootComment: v.FootComment}
		}
		return v
	}
	v := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	m.Content = append(m.Content, strNode(key), v)
	return v
}

// HasProfile reports whether the document holds the profile now.
func (e *Edit) HasProfile(name string) bool {
	profiles := lookup(e.root(), "profiles")
	return profiles != nil && lookup(profiles, name) != nil
}

// AddProfile makes sure the profile exists, reporting whether it was added.
func (e *Edit) AddProfile(name string) (bool, error) {
	if err := ValidateProfileName(name); err != nil {
		return false, err
	}
	if e.HasProfile(name) {
		// A profile written as `name:` (null) becomes a mapping.
		mappingIn(mappingIn(e.root(), "profiles"), name)
		return false, nil
	}
	mappingIn(mappingIn(e.root(), "profiles"), name)
	return true, nil
}

// Set stores a key's value in a profile, adding the profile when missing.
// The key must be known and the value valid for it.
func (e *Edit) Set(profile, key, value string) error {
	if _, ok := LookupKey(key); !ok {
		return &UnknownKeyError{Key: key}
	}
	if err := ValidateValue(key, value); err != nil {
		return &ValueError{Key: key, Where: "the value given", Err: err}
	}
	if _, err := e.AddProfile(profile); err != nil {
		return err
	}
	body := mappingIn(mappingIn(e.root(), "profiles"), profile)
	if v := lookup(body, key); v != nil {
		setScalar(v, value)
		return nil
	}
	// An emptied profile is saved as `{}` and read back in flow style; the
	// first key added to it brings back the block style every other
	// profile has. A flow mapping someone wrote with keys in it stays so.
	if len(body.Content) == 0 {
		body.Style &^= yaml.FlowStyle
	}
	body.Content = append(body.Content, strNode(key), strNode(value))
	return nil
}

// Unset removes a key from a profile, reporting whether it was there. The
// key's comments go with it.
func (e *Edit) Unset(profile, key string) (bool, error) {
	if _, ok := LookupKey(key); !ok {
		return false, &UnknownKeyError{Key: key}
	}
	profiles := lookup(e.root(), "profiles")
	if profiles == nil {
		return false, nil
	}
	body := lookup(profiles, profile)
	if body == nil || body.Kind != yaml.MappingNode {
		return false, nil
	}
	for i := 0; i+1 < len(body.Content); i += 2 {
		if body.Content[i].Value == key {
			body.Content = append(body.Content[:i], body.Content[i+2:]...)
			return true, nil
		}
	}
	return false, nil
}

// SetDefaultProfile sets default_profile, placing it at the top of the file
// when it was not there.
func (e *Edit) SetDefaultProfile(name string) error {
	if err := ValidateProfileName(name); err != nil {
		return err
	}
	root := e.root()
	if v := lookup(root, "default_profile"); v != nil {
		setScalar(v, name)
		return nil
	}
	root.Content = append([]*yaml.Node{strNode("default_profile"), strNode(name)}, root.Content...)
	return nil
}

// Bytes encodes the document as it now stands.
func (e *Edit) Bytes() ([]byte, error) {
	spellFlowNulls(e.doc, false)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(e.doc); err != nil {
		return nil, fmt.Errorf("cannot encode %s: %w", e.Path, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("cannot encode %s: %w", e.Path, err)
	}
	return buf.Bytes(), nil
}

// Save writes the document with w, atomically and with mode 0600. The new
// document is checked first, so a bug here can never leave a file that
// paycli itself would refuse to read.
func (e *Edit) Save(w AtomicWriter) error {
	data, err := e.Bytes()
	if err != nil {
		return err
	}
	check := &File{Path: e.Path, Profiles: map[string]map[string]string{}}
	if err := check.parse(data); err != nil {
		return fmt.Errorf("refusing to save %s: %w", e.Path, err)
	}
	return w.WriteFile(e.Path, data)
}

// UnknownKeyError is a key name that is not one of Keys.
type UnknownKeyError struct{ Key string }

func (e *UnknownKeyError) Error() string {
	return fmt.Sprintf("unknown key %q (known keys: %s)", e.Key, strings.Join(KeyNames(), ", "))
}

// spellFlowNulls writes the empty nulls inside flow collections (`{a}`,
// `{a: }`) as "null": yaml.v3 would emit them as an empty quoted string, turning an empty
// profile into a string that paycli then refuses to read.
func spellFlowNulls(n *yaml.Node, inFlow bool) {
	inFlow = inFlow || n.Style&yaml.FlowStyle != 0
	if inFlow && n.Kind == yaml.ScalarNode && n.Tag == "!!null" && n.Value == "" {
		n.Value = "null"
	}
	for _, c := range n.Content {
		spellFlowNulls(c, inFlow)
	}
}

// RenameProfile renames a profile in place, keeping its keys and comments,
// and default_profile with it when it named the profile. The new name must
// be free.
func (e *Edit) RenameProfile(from, to string) error {
	if err := ValidateProfileName(to); err != nil {
		return err
	}
	profiles := lookup(e.root(), "profiles")
	if profiles == nil || lookup(profiles, from) == nil {
		return &ProfileError{Profile: from, Path: e.Path, Known: e.Before.ProfileNames()}
	}
	for i := 0; i+1 < len(profiles.Content); i += 2 {
		if strings.EqualFold(profiles.Content[i].Value, to) && profiles.Content[i].Value != from {
			return fmt.Errorf("profile %q already exists in %s", profiles.Content[i].Value, e.Path)
		}
	}
	for i := 0; i+1 < len(profiles.Content); i += 2 {
		if profiles.Content[i].Value == from {
			setScalar(profiles.Content[i], to)
		}
	}
	if v := lookup(e.root(), "default_profile"); v != nil && v.Value == from {
		setScalar(v, to)
	}
	return nil
}

// DeleteProfile removes a profile and its comments, reporting whether it
// was there; a default_profile naming it goes too, so that the file does
// not name a profile it lacks.
func (e *Edit) DeleteProfile(name string) (bool, error) {
	profiles := lookup(e.root(), "profiles")
	if profiles == nil {
		return false, nil
	}
	for i := 0; i+1 < len(profiles.Content); i += 2 {
		if profiles.Content[i].Value == name {
			profiles.Content = append(profiles.Content[:i], profiles.Content[i+2:]...)
			root := e.root()
			for j := 0; j+1 < len(root.Content); j += 2 {
				if root.Content[j].Value == "default_profile" && root.Content[j+1].Value == name {
					root.Content = append(root.Content[:j], root.Content[j+2:]...)
					break
				}
			}
			return true, nil
		}
	}
	return false, nil
}
