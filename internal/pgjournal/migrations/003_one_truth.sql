-- One invoice, one truth: the rules the database itself upholds, whoever
-- writes and whatever paycli (or psql) they use. docs/journal.md says what
-- they guarantee and what they do not.
--
-- Errors a client tells apart by SQLSTATE (class PC, paycli's own):
--   PC001 an intent on an invoice that holds an unsettled attempt
--   PC002 an outcome line not written by the role that wrote its intent
--   PC003 a reconcile line that settles without the gateway's evidence
-- and a sandbox line breaks the CHECK journal_lines_not_sandbox (23514).

-- The database's clock for the guards: when the request of an intent is
-- over, on the database's clock (recorded_at, its clock at the insert,
-- plus the time limit the writer gave it). A writer whose clock is slow or
-- fast moves nothing.
ALTER TABLE paycli.journal_lines ADD COLUMN db_deadline timestamptz;

-- Sandbox lines never enter the shared journal. A line is the sandbox's by
-- its own fields: its gateway identity says so ("sandbox-…"), or it is a
-- line of an older paycli, whose sandbox identity was an unprefixed hash,
-- made under the sandbox's profile name at a loopback address (where the
-- in-process emulator listens). NOT VALID: lines already there stay (the
-- journal is append-only); every new one is checked.
ALTER TABLE paycli.journal_lines ADD CONSTRAINT journal_lines_not_sandbox CHECK (
    gateway NOT LIKE 'sandbox-%'
    AND NOT (coalesce(entry ->> 'profile', '') = 'sandbox'
             AND coalesce(entry ->> 'base_url', '') ~* '^https?://(127\.[0-9.]+|localhost|\[::1\])([:/]|$)')
) NOT VALID;

CREATE INDEX journal_lines_attempt ON paycli.journal_lines (attempt, invoice);

-- The journal's own identity, minted once: with the cluster's system
-- identifier and the database's name it keys a machine's spool, whatever
-- the URL that reached it.
CREATE TABLE paycli.journal_identity (
    id      uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    created timestamptz NOT NULL DEFAULT now()
);
INSERT INTO paycli.journal_identity DEFAULT VALUES;
-- Not a secret; only roles with USAGE on the schema (Grant) reach it.
GRANT SELECT ON paycli.journal_identity TO PUBLIC;

-- The attempts of (gw, inv) whose outcome is not settled: the one rule's
-- definition, beside Go's (journal.Attempt.Class and journal.UnresolvedOf;
-- pgjournal's agreement test runs both over one table of histories):
--   * lines pair into attempts by attempt id and invoice, begun by their
--     first intent or outcome line (an outcome without an intent stands
--     for one); a reconcile line before that is ignored;
--   * an attempt's class is its last outcome line's outcome when that is
--     neither '', unknown nor queued; else its last reconcile line's when
--     that is succeeded, declined or not_found; else queued (when the
--     outcome said so) or unknown;
--   * an unknown or queued attempt is unsettled unless a later attempt of
--     the same story tells what became of it: the story is the refund's
--     ref when the attempt has one (any answer to that ref tells:
--     succeeded, duplicate, declined, not_found, rejected with a
--     status_code other than 30), else its kind (a later succeeded,
--     declined or not_found attempt of the kind tells).
CREATE FUNCTION paycli.unsettled_attempts(gw text, inv text)
RETURNS TABLE (attempt text, kind text, ref text, operator name, class text)
LANGUAGE sql STABLE AS $$
WITH l AS (
    SELECT j.seq, j.attempt, j.type, j.kind, j.gateway, j.outcome, j.entry, j.operator
    FROM paycli.journal_lines j WHERE j.invoice = inv
), a AS (
    SELECT DISTINCT ON (l.attempt) l.attempt, l.seq AS first, l.kind, l.gateway,
        coalesce(l.entry ->> 'ref', '') AS ref, l.operator
    FROM l WHERE l.type IN ('intent', 'outcome') ORDER BY l.attempt, l.seq
), c AS (
    SELECT a.*, o.outcome AS o_outcome, o.entry -> 'status_code' AS o_code, r.outcome AS r_outcome
    FROM a
    LEFT JOIN LATERAL (SELECT l.outcome, l.entry FROM l WHERE l.attempt = a.attempt AND l.type = 'outcome'
        ORDER BY l.seq DESC LIMIT 1) o ON true
    LEFT JOIN LATERAL (SELECT l.outcome FROM l WHERE l.attempt = a.attempt AND l.type = 'reconcile' AND l.seq > a.first
        ORDER BY l.seq DESC LIMIT 1) r ON true
    WHERE a.gateway = gw
), k AS (
    SELECT c.*, CASE
        WHEN c.o_outcome NOT IN ('', 'unknown', 'queued') THEN c.o_outcome
        WHEN c.r_outcome IN ('succeeded', 'declined', 'not_found') THEN c.r_outcome
        WHEN c.o_outcome = 'queued' THEN 'queued'
        ELSE 'unknown' END AS class
    FROM c
), t AS (
    SELECT k.*,
        CASE WHEN k.ref <> '' THEN 'ref' || E'\n' || k.ref ELSE 'kind' || E'\n' || k.kind END AS story,
        CASE WHEN k.ref <> '' THEN k.class IN ('succeeded', 'duplicate', 'declined', 'not_found')
                OR (k.class = 'rejected' AND jsonb_typeof(k.o_code) = 'number' AND k.o_code::text <> '30')
             ELSE k.class IN ('succeeded', 'declined', 'not_found') END AS tells
    FROM k
)
SELECT t.attempt, t.kind, t.ref, t.operator, t.class FROM t
WHERE t.class IN ('unknown', 'queued')
  AND NOT EXISTS (SELECT 1 FROM t later WHERE later.story = t.story AND later.first > t.first AND later.tells)
ORDER BY t.first
$$;

-- The rule, checked on every line as it is inserted, after stamp_line
-- (triggers fire in name order: journal_lines_stamp, then this one).
CREATE FUNCTION paycli.verify_line() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    intent_role name;
    intent_gateway text;
    blocking text;
BEGIN
    -- A line is durable once committed, whatever the server's or the
    -- session's default: its transaction commits with synchronous_commit on.
    PERFORM set_config('synchronous_commit', 'on', true);
    -- One intent writer at a time per invoice on a gateway account: two
    -- sessions cannot both find it settled and both write an intent. A
    -- two-key advisory lock, another key space than the invoice locks (one
    -- key), held to the transaction's end. Other lines need none: an
    -- outcome written meanwhile can only make the check refuse.
    IF NEW.type = 'intent' THEN
        PERFORM pg_advisory_xact_lock(hashtext('paycli:' || NEW.gateway), hashtext(NEW.invoice));
    END IF;
    IF EXISTS (SELECT 1 FROM paycli.journal_lines j
               WHERE j.attempt = NEW.attempt AND j.type = NEW.type AND j.at = NEW.at) THEN
        RETURN NEW; -- the very same line again: ON CONFLICT leaves it
    END IF;
    IF NEW.type = 'intent' THEN
        NEW.db_deadline := NEW.recorded_at + CASE
            WHEN NEW.entry ? 'deadline' AND (NEW.entry ->> 'deadline')::timestamptz > NEW.at
                THEN (NEW.entry ->> 'deadline')::timestamptz - NEW.at
            WHEN NEW.entry ? 'deadline' THEN interval '0'
            ELSE interval '10 minutes' END;
        IF EXISTS (SELECT 1 FROM paycli.journal_lines j
                   WHERE j.attempt = NEW.attempt AND j.invoice = NEW.invoice AND j.type = 'intent') THEN
            RETURN NEW; -- a repeated intent: readers ignore it
        END IF;
        IF NEW.gateway = '' THEN
            RETURN NEW; -- a line of an older paycli, without an account: it tells nothing on one
        END IF;
        SELECT string_agg(format('%s (%s, %s, by %s)', u.attempt, u.kind, u.class, u.operator), ', ')
        INTO blocking
        FROM paycli.unsettled_attempts(NEW.gateway, NEW.invoice) u
        -- The one narrowing: a retry of the very same refund.
        WHERE NOT (NEW.kind = 'refund' AND coalesce(NEW.entry ->> 'ref', '') <> ''
                   AND u.kind = 'refund' AND u.ref = NEW.entry ->> 'ref');
        IF blocking IS NOT NULL THEN
            RAISE EXCEPTION 'invoice % has an attempt whose outcome is not settled: %', NEW.invoice, blocking
                USING ERRCODE = 'PC001',
                      HINT = 'Settle it first: paycli status --invoice ID, or paycli journal reconcile.';
        END IF;
    ELSIF NEW.type = 'outcome' THEN
        SELECT j.operator, j.gateway INTO intent_role, intent_gateway FROM paycli.journal_lines j
        WHERE j.attempt = NEW.attempt AND j.invoice = NEW.invoice AND j.type = 'intent' ORDER BY j.seq LIMIT 1;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'outcome of attempt % refused: the journal holds no intent for it', NEW.attempt
                USING ERRCODE = 'PC002';
        END IF;
        IF intent_role <> current_user OR intent_gateway <> NEW.gateway THEN
            RAISE EXCEPTION 'outcome of attempt % refused: its intent was written by %, not by %', NEW.attempt, intent_role, current_user
                USING ERRCODE = 'PC002',
                      HINT = 'Another operator settles it with paycli journal reconcile, which records the gateway''s answer.';
        END IF;
    ELSIF NEW.type = 'reconcile' THEN
        IF NEW.outcome IN ('succeeded', 'declined', 'not_found')
           AND (jsonb_typeof(NEW.entry -> 'evidence') IS DISTINCT FROM 'object'
                OR jsonb_typeof(NEW.entry -> 'evidence' -> 'status_code') IS DISTINCT FROM 'number') THEN
            RAISE EXCEPTION 'reconcile line of attempt % refused: it settles the attempt without the gateway''s check-status answer', NEW.attempt
                USING ERRCODE = 'PC003';
        END IF;
    ELSE
        RAISE EXCEPTION 'a journal line of type % is refused', NEW.type USING ERRCODE = 'PC002';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER journal_lines_verify BEFORE INSERT ON paycli.journal_lines
    FOR EACH ROW EXECUTE FUNCTION paycli.verify_line();

-- The invoice locks' "since" is the database's clock too.
ALTER TABLE paycli.invoice_locks ALTER COLUMN since SET DEFAULT now();
