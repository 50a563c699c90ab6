-- An account is named by its merchant (issue 39, defect 4): a line's
-- gateway is a hash of the base URL and the merchant_key
-- (journal.AccountIdentity), which a rotation of the API credentials does
-- not change, and every line also carries the name an earlier paycli gave
-- the account, from the app_id it was written with (app_gateway). Lines
-- that carry that older name as their gateway are the account's: the rule
-- reads both names' lines as one account's (Go: journal.Scope.Alias,
-- journal.Entry.AppGateway). Step 5's reading is otherwise unchanged.

-- The unsettled attempts of an invoice on the account named gw, or alias
-- on an earlier paycli's lines ('' for none).
CREATE FUNCTION paycli.unsettled_attempts(gw text, alias text, inv text)
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
    SELECT a.*, o.outcome AS o_outcome, r.outcome AS r_outcome, r.via AS r_via
    FROM a
    LEFT JOIN LATERAL (SELECT l.outcome FROM l WHERE l.attempt = a.attempt AND l.type = 'outcome'
        ORDER BY l.seq DESC LIMIT 1) o ON true
    LEFT JOIN LATERAL (SELECT l.outcome, coalesce(l.entry ->> 'via', '') AS via FROM l
        WHERE l.attempt = a.attempt AND l.type = 'reconcile' AND l.seq > a.first
        ORDER BY l.seq DESC LIMIT 1) r ON true
    WHERE a.gateway = gw OR (alias <> '' AND a.gateway = alias)
), k AS (
    SELECT c.*, CASE
        WHEN c.o_outcome NOT IN ('', 'unknown', 'queued') THEN c.o_outcome
        WHEN c.r_outcome IN ('succeeded', 'declined') THEN c.r_outcome
        WHEN c.r_outcome = 'not_found' AND c.r_via = 'journal settle' THEN c.r_outcome
        WHEN c.o_outcome = 'queued' THEN 'queued'
        ELSE 'unknown' END AS class
    FROM c
), t AS (
    SELECT k.*,
        CASE WHEN k.ref <> '' THEN 'ref' || E'\n' || k.ref ELSE 'kind' || E'\n' || k.kind END AS story
    FROM k
)
SELECT t.attempt, t.kind, t.ref, t.operator, t.class FROM t
WHERE t.class IN ('unknown', 'queued')
  AND NOT EXISTS (SELECT 1 FROM t later WHERE later.story = t.story AND later.first > t.first AND later.class = 'succeeded')
ORDER BY t.first
$$;

-- Step 5's function of one name reads that name alone.
CREATE OR REPLACE FUNCTION paycli.unsettled_attempts(gw text, inv text)
RETURNS TABLE (attempt text, kind text, ref text, operator name, class text)
LANGUAGE sql STABLE AS $$
SELECT * FROM paycli.unsettled_attempts(gw, '', inv)
$$;

-- Step 5's check of an intent, over the account's two names.
CREATE OR REPLACE FUNCTION paycli.verify_line() RETURNS trigger LANGUAGE plpgsql AS $$
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
        FROM paycli.unsettled_attempts(NEW.gateway, coalesce(NEW.entry ->> 'app_gateway', ''), NEW.invoice) u
        -- The one narrowing: the re-send of the very same attempt, an
        -- attempt of its kind with its ref (a refund's retry; a saved
        -- card's deletion sent again), never past a queued one, as Go's
        -- journal.MayResend.
        WHERE NOT (coalesce(NEW.entry ->> 'ref', '') <> ''
                   AND u.kind = NEW.kind AND u.ref = NEW.entry ->> 'ref' AND u.class <> 'queued');
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
    ELSIF NEW.type = 'reconcile' AND coalesce(NEW.entry ->> 'via', '') = 'journal settle' THEN
        -- The desk lead settles an attempt by hand: no gateway answer backs
        -- it, so the database takes it only from a lead, with a reason.
        IF NOT pg_has_role(current_user, 'paycli_lead', 'MEMBER') THEN
            RAISE EXCEPTION 'settlement of attempt % refused: role % is not a desk lead (a member of paycli_lead)', NEW.attempt, current_user
                USING ERRCODE = 'PC004',
                      HINT = 'Ask the desk lead to settle it, or the database''s owner to run paycli journal init --url URL --lead ROLE.';
        END IF;
        IF coalesce(btrim(NEW.entry ->> 'reason'), '') = '' THEN
            RAISE EXCEPTION 'settlement of attempt % refused: it gives no reason', NEW.attempt
                USING ERRCODE = 'PC003';
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

-- The entry's fields, with the ones lines now carry: the account's older
-- name, and who settled an attempt by hand (the lead's OS user and host).
CREATE OR REPLACE FUNCTION paycli.entry_fields() RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_build_object(
        'type', 'string', 'kind', 'string', 'gateway', 'string', 'app_gateway', 'string', 'os_user', 'string', 'host', 'string', 'attempt', 'string', 'time', 'time',
        'profile', 'string', 'base_url', 'string', 'invoice', 'string', 'amount', 'string', 'currency', 'string',
        'card', 'string', 'wallet', 'string', 'ref', 'string', 'key', 'string', 'reason', 'string',
        'deadline', 'time', 'outcome', 'string', 'status_code', 'int', 'order_no', 'string', 'message', 'string',
        'status_description', 'string', 'payment_reason_code', 'string', 'payment_reason_code_detail', 'string',
        'original_bank_error_code', 'string', 'original_bank_error_description', 'string',
        'transaction_status', 'string', 'via', 'string', 'evidence', 'evidence')
$$;

-- The rule's functions resolve every name in pg_catalog (theirs are
-- schema-qualified): an operator's objects in a schema on the search path
-- cannot stand in for pg_has_role, jsonb_typeof or format.
ALTER FUNCTION paycli.verify_line() SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION paycli.unsettled_attempts(text, text, text) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION paycli.unsettled_attempts(text, text) SET search_path = pg_catalog, pg_temp;
