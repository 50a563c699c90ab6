package redact

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestJSONValue: every string and number is masked by the name of the
// member it is the value of, however deep, an array's elements by the
// array's; a number the mask leaves alone stays a number.
func TestJSONValue(t *testing.T) {
	dec := json.NewDecoder(bytes.NewReader([]byte(
		`{"app_secret":"s3cr3t","total":10.5,"pin":1234,"items":[{"app_secret":"x"},"y"],"codes":["a",7],"ok":true,"none":null}`)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	mask := func(key, text string) string {
		if key == "app_secret" || key == "codes" || key == "pin" {
			return "masked " + key
		}
		return text
	}
	got, err := json.Marshal(JSONValue(v, "", mask))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"app_secret":"masked app_secret","codes":["masked codes","masked codes"],"items":[{"app_secret":"masked app_secret"},"y"],"none":null,"ok":true,"pin":"masked pin","total":10.5}`
	if string(got) != want {
		t.Errorf("JSONValue:\n got %s\nwant %s", got, want)
	}
}
