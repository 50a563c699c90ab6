package render

import (
	"bytes"
	"encoding/json"
	"io"
)

// Field is one named value of an object shown field by field (a payment's
// result, a transaction's status), kept in order.
type Field struct {
	Name string
	// JSON is the value's JSON encoding; Text is how a table or CSV shows it.
	JSON json.RawMessage
	Text string
}

// MarshalFields encodes fields as one JSON object, in their order.
func MarshalFields(fs []Field) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(f.Name)
		b.Write(name)
		b.WriteByte(':')
		if len(f.JSON) == 0 {
			b.WriteString("null")
		} else {
			b.Write(f.JSON)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// WriteFields writes an object of a gateway answer as a two-column table
// of fields, as one indented JSON object, or as CSV/TSV with a header of
// names and one row. Card numbers in it are masked in every format (see
// MaskCardNumbers; identifierFields are kept whole), and the table makes
// control characters visible (Escape).
func WriteFields(w io.Writer, format Format, palette Palette, fs []Field) error {
	masked := make([]Field, len(fs))
	for i, f := range fs {
		masked[i] = maskField(f)
	}
	fs = masked
	switch format {
	case JSON:
		var indented bytes.Buffer
		if err := json.Indent(&indented, MarshalFields(fs), "", "  "); err != nil {
			return err
		}
		indented.WriteByte('\n')
		_, err := w.Write(indented.Bytes())
		return err
	case CSV, TSV:
		header := make([]string, len(fs))
		row := make([]string, len(fs))
		for i, f := range fs {
			header[i], row[i] = f.Name, f.Text
		}
		return WriteRecords(w, format, header, [][]string{row})
	}
	rows := make([][]string, len(fs))
	for i, f := range fs {
		rows[i] = []string{f.Name, f.Text}
	}
	return WriteTable(w, TableOptions{Palette: palette}, []string{"FIELD", "VALUE"}, rows)
}
