package pgjournal

import (
	"context"
	"errors"
	"testing"

	"github.com/paycli/paycli/internal/journal"
)

// TestResendOfACardDeletion (migration 004): a saved card's deletion of
// unknown outcome lets through the same deletion sent again (its kind and
// its ref, the card token), as the file journal does (journal.MayResend),
// and nothing else on the card's key: not a deletion with another ref, not
// an attempt of another kind. Before 004 the database let only a refund's
// retry through, and refused the re-send that settles the deletion.
func TestResendOfACardDeletion(t *testing.T) {
	t.Parallel()
	srv := pg.Start(t)
	db, _ := deskDB(t, srv)
	ayse := openAs(t, srv, db, "ayse", "desk-1", 101)
	mehmet := openAs(t, srv, db, "mehmet", "desk-2", 202)
	ctx := context.Background()
	const key = "card:5070:0f1e2d3c4b5a69788796a5b4c3d2e1f0"
	del := of(intent("cd-1", key, ""), "card-delete")
	del.Ref = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
	for _, e := range []journal.Entry{del, outcome(del, journal.Unknown, 0)} {
		if err := ayse.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	other := of(intent("cd-2", key, ""), "card-delete")
	other.Ref = "another"
	if err := mehmet.Append(ctx, other); !errors.Is(err, journal.ErrUnsettled) {
		t.Errorf("a deletion with another ref: %v, want ErrUnsettled", err)
	}
	refund := intent("rf-x", key, del.Ref) // a refund naming the same ref: another kind
	if err := mehmet.Append(ctx, refund); !errors.Is(err, journal.ErrUnsettled) {
		t.Errorf("a refund with the deletion's ref: %v, want ErrUnsettled", err)
	}
	again := del
	again.Attempt = "cd-3"
	if err := mehmet.Append(ctx, again); err != nil {
		t.Errorf("the same deletion sent again: %v", err)
	}
}
