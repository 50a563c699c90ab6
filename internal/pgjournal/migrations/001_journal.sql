-- The shared journal: one row per journal line (intent, outcome,
-- reconcile), as the file journal writes them, plus who wrote it as the
-- database knows it. Append-only for everyone: privileges keep operators
-- to SELECT and INSERT, and triggers refuse UPDATE, DELETE and TRUNCATE
-- even to the owner.
CREATE SCHEMA IF NOT EXISTS paycli;

CREATE TABLE paycli.journal_lines (
    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    attempt     text        NOT NULL,
    type        text        NOT NULL,
    kind        text        NOT NULL,
    gateway     text        NOT NULL,
    invoice     text        NOT NULL,
    outcome     text        NOT NULL DEFAULT '',
    at          timestamptz NOT NULL,
    intent_at   timestamptz NOT NULL,
    entry       jsonb       NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    operator    name        NOT NULL DEFAULT current_user,
    os_user     text        NOT NULL DEFAULT '',
    host        text        NOT NULL DEFAULT '',
    CONSTRAINT journal_lines_once UNIQUE (attempt, type, at)
);

CREATE INDEX journal_lines_invoice ON paycli.journal_lines (invoice);
CREATE INDEX journal_lines_ref ON paycli.journal_lines ((entry ->> 'ref')) WHERE entry ? 'ref';
CREATE INDEX journal_lines_window ON paycli.journal_lines (intent_at);

-- The operator is who the database says, whatever the client sent. Every
-- line carries its attempt's intent time (intent_at), so that the
-- attempts of a time window are one range of one index, lines written
-- later (an outcome, a reconciliation days after) included.
CREATE FUNCTION paycli.stamp_line() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.operator := current_user;
    NEW.recorded_at := clock_timestamp();
    IF NEW.type = 'intent' THEN
        NEW.intent_at := NEW.at;
    ELSE
        SELECT l.at INTO NEW.intent_at FROM paycli.journal_lines l
            WHERE l.attempt = NEW.attempt AND l.type = 'intent' ORDER BY l.seq LIMIT 1;
        NEW.intent_at := coalesce(NEW.intent_at, NEW.at);
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER journal_lines_stamp BEFORE INSERT ON paycli.journal_lines
    FOR EACH ROW EXECUTE FUNCTION paycli.stamp_line();

CREATE FUNCTION paycli.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the paycli journal is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER journal_lines_append_only BEFORE UPDATE OR DELETE ON paycli.journal_lines
    FOR EACH ROW EXECUTE FUNCTION paycli.refuse_change();
CREATE TRIGGER journal_lines_no_truncate BEFORE TRUNCATE ON paycli.journal_lines
    FOR EACH STATEMENT EXECUTE FUNCTION paycli.refuse_change();

REVOKE ALL ON paycli.journal_lines FROM PUBLIC;

-- Who holds an invoice's lock, for the message another operator sees. The
-- lock itself is a session-level advisory lock on key, which the server
-- releases when the holder's session ends; a row whose backend no longer
-- holds the lock is stale and ignored. Not history: rows come and go.
CREATE TABLE paycli.invoice_locks (
    key         bigint      PRIMARY KEY,
    gateway     text        NOT NULL,
    invoice     text        NOT NULL,
    command     text        NOT NULL,
    pid         int         NOT NULL,
    os_user     text        NOT NULL DEFAULT '',
    host        text        NOT NULL DEFAULT '',
    since       timestamptz NOT NULL,
    operator    name        NOT NULL DEFAULT current_user,
    backend_pid int         NOT NULL DEFAULT pg_backend_pid()
);

CREATE FUNCTION paycli.stamp_lock() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.operator := current_user;
    NEW.backend_pid := pg_backend_pid();
    RETURN NEW;
END $$;
CREATE TRIGGER invoice_locks_stamp BEFORE INSERT OR UPDATE ON paycli.invoice_locks
    FOR EACH ROW EXECUTE FUNCTION paycli.stamp_lock();

REVOKE ALL ON paycli.invoice_locks FROM PUBLIC;
