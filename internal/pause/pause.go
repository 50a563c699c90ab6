// Package pause holds paycli's one way of waiting: every pause (between
// --watch checks, between gateway attempts, in the soak harness and the
// sandbox's fault delays) must end as soon as the command's context does,
// so that Ctrl-C and --timeout are obeyed while waiting.
package pause

import (
	"context"
	"time"
)

// For waits for d, or until ctx ends, whichever comes first; it returns
// ctx's error when ctx ended first (also when it had already ended) and nil
// otherwise. A d of zero or less does not wait.
func For(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
