package pause

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSleepEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// An hour-long wait on an ended context returns its error at once (the
	// test would time out otherwise).
	if err := For(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("For on a cancelled context = %v, want context.Canceled", err)
	}
	if err := For(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("For(0) on a cancelled context = %v", err)
	}
}

func TestSleepWaits(t *testing.T) {
	if err := For(context.Background(), time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := For(context.Background(), -time.Second); err != nil {
		t.Fatal(err)
	}
}
