-- The attempts of one gateway account whose intents fall in a time range
-- (an audit of a day against the gateway's ledger, issue 41). Every line
-- carries its attempt's intent time (intent_at), so an outcome or a
-- reconciliation written days later is in its attempt's range: the range
-- is one stretch of this index, read in time order (no sort), and its
-- entries name their account, so the lines of other accounts are passed
-- over in the index rather than fetched from the table.
--
-- The time leads, as in journal_lines_window, which it replaces (every
-- query of a window is served by its leading column alike): lines are
-- written in time order, so the planner knows a range's lines lie
-- together in the table. An index led by the account, whose lines are
-- spread among every other account's, is costed as random reads and
-- passed over for the time's index.
CREATE INDEX journal_lines_account_window ON paycli.journal_lines (intent_at, gateway);
DROP INDEX paycli.journal_lines_window;
