package config

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
)

// keyDelimiter separates viper's key path: profile names may hold '.',
// viper's own delimiter.
const keyDelimiter = "::"

// Load resolves the configuration for the running command: one viper per
// run reads the settings, then the secrets' references are sorted out
// (LoadSecrets fetches what they point at).
func Load(opts LoadOptions) (*Config, error) {
	path, err := Path(opts)
	if err != nil {
		return nil, err
	}
	file, err := ReadFile(path)
	if err != nil {
		return nil, err
	}

	profile, explicit := SelectProfile(opts, file)
	if err := ValidateProfileName(profile); err != nil {
		return nil, err
	}
	if _, found := file.Profiles[profile]; !found && explicit && (file.Exists || profile != DefaultProfile) {
		return nil, &ProfileError{Profile: profile, Path: path, Known: file.ProfileNames()}
	}

	v, err := newViper(opts, file, profile)
	if err != nil {
		return nil, err
	}
	cfg := &Config{Path: path, Profile: profile, FileMode: file.Mode, values: map[string]string{}, sources: map[string]Source{},
		ProfileNamed: explicit && (file.DefaultProfile == "" || profile != file.DefaultProfile), file: file}
	for _, k := range Keys {
		key := profileKey(profile, k.Name)
		cfg.values[k.Name] = v.GetString(key)
		cfg.sources[k.Name] = sourceOf(opts, v, k, key)
	}
	cfg.chooseSecretSources()
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	return cfg, nil
}

func profileKey(profile, key string) string {
	return "profiles" + keyDelimiter + profile + keyDelimiter + key
}

// newViper builds the run's viper: the config file (already checked by
// ReadFile, so that its mistakes come with their lines), the environment,
// the flags the running command has, and the keys' defaults. viper reads
// the file through yamlStrings, so that a value means the text the user
// wrote (app_id: 0123 stays 0123, not octal 83).
func newViper(opts LoadOptions, file *File, profile string) (*viper.Viper, error) {
	codecs := viper.NewCodecRegistry()
	if err := codecs.RegisterCodec("yaml", yamlStrings{}); err != nil {
		return nil, err
	}
	v := viper.NewWithOptions(viper.KeyDelimiter(keyDelimiter), viper.WithCodecRegistry(codecs))
	v.SetConfigType("yaml")
	if file.Exists && len(file.data) > 0 {
		if err := v.ReadConfig(bytes.NewReader(file.data)); err != nil {
			return nil, &FileError{Path: file.Path, Err: err}
		}
	}
	for _, k := range Keys {
		key := profileKey(profile, k.Name)
		if err := v.BindEnv(key, k.Env()); err != nil {
			return nil, err
		}
		if k.Default != "" {
			v.SetDefault(key, k.Default)
		}
		if k.Flag != "" && opts.Flags != nil {
			if f := opts.Flags.Lookup(k.Flag); f != nil {
				if err := v.BindPFlag(key, f); err != nil {
					return nil, err
				}
			}
		}
		// viper's environment layer reads the process's environment; an
		// environment handed in (LookupEnv, as tests do) is laid on top
		// where no flag was given, so that it ranks where viper ranks the
		// environment: below the flag, above the file.
		if opts.LookupEnv != nil {
			if _, flagged := opts.flag(k.Flag); !flagged {
				if val, ok := opts.LookupEnv(k.Env()); ok && val != "" {
					v.Set(key, val)
				}
			}
		}
	}
	return v, nil
}

// sourceOf names the layer viper took a key's value from, for `config
// list` and for errors: the order is viper's.
func sourceOf(opts LoadOptions, v *viper.Viper, k Key, key string) Source {
	if _, ok := opts.flag(k.Flag); ok {
		return SourceFlag
	}
	if val, ok := opts.env(k.Env()); ok && val != "" {
		return SourceEnv
	}
	if v.InConfig(key) {
		return SourceFile
	}
	return SourceDefault
}

// yamlStrings is the YAML decoder paycli gives viper: every scalar is
// kept as the text it was written as, and a null as "".
type yamlStrings struct{}

func (yamlStrings) Decode(b []byte, out map[string]any) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return err
	}
	if len(doc.Content) == 0 {
		return nil
	}
	m, ok := nodeValue(doc.Content[0], 0).(map[string]any)
	if !ok {
		return fmt.Errorf("expected a mapping with default_profile and profiles")
	}
	for k, v := range m {
		out[k] = v
	}
	return nil
}

// Encode is never used: paycli writes the file itself (Edit), keeping its
// comments.
func (yamlStrings) Encode(map[string]any) ([]byte, error) {
	return nil, fmt.Errorf("paycli writes its config file with config.Edit, not viper")
}

// nodeValue is n as viper holds it; depth 2 is a profile's body, where a
// null (`live:` with nothing under it) is an empty profile, not a value
// that would hide the keys' defaults.
func nodeValue(n *yaml.Node, depth int) any {
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[strings.ToLower(n.Content[i].Value)] = nodeValue(n.Content[i+1], depth+1)
		}
		return m
	case yaml.AliasNode:
		return nodeValue(n.Alias, depth)
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			if depth <= 2 {
				return map[string]any{}
			}
			return ""
		}
		return n.Value
	}
	return nil
}
