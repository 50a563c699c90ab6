package config

import (
	"errors"
	"maps"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the config file parser. It must never
// panic; whatever it accepts must survive an edit round trip (parse, set a
// key, encode, parse again) with every other value unchanged, since `paycli
// config set` relies on exactly that.
func FuzzParse(f *testing.F) {
	f.Add([]byte(""))
	f.Add([]byte("default_profile: live\nprofiles:\n  live:\n    base_url: https://app.sipay.com.tr/ccpayment\n    app_id: 12345\n"))
	f.Add([]byte("# comment only\n"))
	f.Add([]byte("profiles:\n  a:\n  b: {lang: tr, output: json}\n"))
	f.Add([]byte("profiles: [\n"))
	f.Add([]byte("profiles:\n  a:\n    colour: red\n"))
	f.Add([]byte("x: &a 1\ny: *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file := &File{Path: "config.yaml", Profiles: map[string]map[string]string{}}
		if err := file.parse(data); err != nil {
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FileError", err)
			}
			return
		}
		e, err := newEdit(file, data)
		if err != nil {
			t.Fatalf("parsed but not editable: %v", err)
		}
		if err := e.Set("fuzz", "lang", "tr"); err != nil {
			t.Fatalf("set: %v", err)
		}
		out, err := e.Bytes()
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		again := &File{Path: "config.yaml", Profiles: map[string]map[string]string{}}
		if err := again.parse(out); err != nil {
			t.Fatalf("edited file does not parse: %v\n%s", err, out)
		}
		if again.DefaultProfile != file.DefaultProfile {
			t.Fatalf("default_profile %q became %q", file.DefaultProfile, again.DefaultProfile)
		}
		for name, values := range file.Profiles {
			want := values
			if name == "fuzz" {
				want = maps.Clone(values)
				want["lang"] = "tr"
			}
			if !maps.Equal(again.Profiles[name], want) {
				t.Fatalf("profile %q: %v became %v", name, want, again.Profiles[name])
			}
		}
		if again.Profiles["fuzz"]["lang"] != "tr" {
			t.Fatalf("set value lost:\n%s", out)
		}
	})
}

// FuzzViperReadsWhatTheFileSays: whatever file the checks accept, viper
// (through paycli's YAML codec) reads every profile's every key as the
// text yaml.v3 decodes, so that the checks and the values never disagree.
func FuzzViperReadsWhatTheFileSays(f *testing.F) {
	f.Add([]byte("default_profile: live\nprofiles:\n  live:\n    app_id: 0123\n    timeout: 45\n"))
	f.Add([]byte("profiles:\n  a.b:\n    lang: tr\n  c:\n"))
	f.Add([]byte("x: &a tr\nprofiles:\n  p:\n    lang: *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file := &File{Path: "config.yaml", Exists: true, Profiles: map[string]map[string]string{}}
		if err := file.parse(data); err != nil {
			return
		}
		for profile, values := range file.Profiles {
			v, err := newViper(LoadOptions{LookupEnv: func(string) (string, bool) { return "", false }}, file, profile)
			if err != nil {
				t.Fatalf("viper refused a file the checks accept: %v", err)
			}
			for _, k := range Keys {
				want, ok := values[k.Name]
				if !ok {
					want = k.Default
				}
				if got := v.GetString(profileKey(profile, k.Name)); got != want {
					t.Fatalf("profile %q key %s: viper reads %q, the file says %q", profile, k.Name, got, want)
				}
			}
		}
	})
}
