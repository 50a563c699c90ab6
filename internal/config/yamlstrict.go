package config

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// StrictYAMLError is a YAML document's mistake found by DecodeYAMLStrict:
// its line (0 when unknown), the unknown field it names ("" for any other
// mistake) and the Go type that field was looked for in.
type StrictYAMLError struct {
	Line  int
	Field string
	Type  string
	Msg   string
}

func (e *StrictYAMLError) Error() string { return e.Msg }

// DecodeYAMLStrict decodes one YAML document (JSON is YAML too) into v,
// refusing fields v's type does not have. It is the one YAML decoder for
// files other than the configuration (the sandbox's scenario files).
func DecodeYAMLStrict(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var typeErr *yaml.TypeError
	if errors.As(err, &typeErr) && len(typeErr.Errors) > 0 {
		first := typeErr.Errors[0]
		out := &StrictYAMLError{Msg: first}
		if rest, ok := strings.CutPrefix(first, "line "); ok {
			var line int
			if _, err := fmt.Sscanf(rest, "%d:", &line); err == nil {
				out.Line = line
			}
		}
		// "line N: field NAME not found in type PKG.TYPE"
		if _, after, ok := strings.Cut(first, ": field "); ok {
			if name, typ, ok := strings.Cut(after, " not found in type "); ok {
				out.Field, out.Type = name, typ[strings.LastIndex(typ, ".")+1:]
			}
		}
		return out
	}
	return &StrictYAMLError{Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
}
