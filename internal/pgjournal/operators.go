package pgjournal

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Operators names the database roles that made an attempt (wrote an
// intent) in the journal, sorted (journal.OperatorLister).
func (s *Store) Operators(ctx context.Context) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT operator FROM paycli.journal_lines WHERE type = 'intent' ORDER BY operator`)
	if err != nil {
		return nil, s.unavailable(err)
	}
	operators, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, s.unavailable(err)
	}
	return operators, nil
}
