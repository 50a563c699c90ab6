package journal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
)

// searchBlock is how much of the journal search reads at a time.
const searchBlock = 1 << 20

// search reads the journal from r (its first byte at offset 0) and calls
// visit with each whole line that holds one of needles(); the needles may
// grow as lines are visited, and are looked for from where the search
// stands. It reads large blocks and looks for the needles in their bytes
// rather than splitting them into lines, so that finding a rare string
// costs about a memory search of the file. A last line without its
// newline (torn, or being written) and lines longer than maxLine are
// never visited.
func search(ctx context.Context, r io.Reader, needles func() [][]byte, visit func(Line)) error {
	// buf holds what is left of the last block, at most maxLine bytes (a
	// longer line is skipped), and the next block.
	buf := make([]byte, 0, maxLine+searchBlock)
	var base int64 // the offset of buf[0]
	skipping := false
	for eof := false; !eof; {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := io.ReadFull(r, buf[len(buf):len(buf)+searchBlock])
		buf = buf[:len(buf)+n]
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			eof = true
		case err != nil:
			return fmt.Errorf("journal: %w", err)
		}
		if skipping {
			// The rest of an overlong line.
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				base += int64(len(buf))
				buf = buf[:0]
				continue
			}
			base += int64(i + 1)
			buf = buf[:copy(buf, buf[i+1:])]
			skipping = false
		}
		end := bytes.LastIndexByte(buf, '\n') + 1
		lines := buf[:end]
		for pos := 0; pos < len(lines); {
			hit := -1
			for _, needle := range needles() {
				if i := bytes.Index(lines[pos:], needle); i >= 0 && (hit < 0 || pos+i < hit) {
					hit = pos + i
				}
			}
			if hit < 0 {
				break
			}
			start := bytes.LastIndexByte(lines[:hit], '\n') + 1
			stop := hit + bytes.IndexByte(lines[hit:], '\n')
			if stop-start <= maxLine {
				visit(Line{Off: base + int64(start), Data: lines[start:stop], Complete: true})
			}
			pos = stop + 1
		}
		rest := buf[end:]
		base += int64(end)
		if len(rest) > maxLine {
			// A line longer than any entry: skip to its end.
			base += int64(len(rest))
			rest, skipping = rest[:0], true
		}
		buf = buf[:copy(buf, rest)]
	}
	return nil
}
