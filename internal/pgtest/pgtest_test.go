package pgtest

import "testing"

// TestStartRestart: a server starts, answers psql, survives a crash and a
// restart with its data.
func TestStartRestart(t *testing.T) {
	s := Start(t)
	s.Exec(t, "postgres", "CREATE TABLE kept (n int); INSERT INTO kept VALUES (1)")
	if err := s.Crash(); err != nil {
		t.Fatal(err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	s.Exec(t, "postgres", "DO $$ BEGIN IF (SELECT count(*) FROM kept) <> 1 THEN RAISE 'lost a row'; END IF; END $$")
}
