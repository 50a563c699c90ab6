-- The re-send of an attempt of unknown outcome, of any kind that names
-- it by a ref, as Go's journal.MayResend lets it: 003 let only a refund's
-- retry past the attempt it retries; `paycli cards delete` sends a saved
-- card's deletion again, with the card token as its ref, to settle an
-- unknown one (docs/cards.md). The function is 003's with that one
-- narrowing widened to every kind; the trigger calls it by name.
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
        FROM paycli.unsettled_attempts(NEW.gateway, NEW.invoice) u
        -- The one narrowing: the re-send of the very same attempt, an
        -- attempt of its kind with its ref (a refund's retry; a saved
        -- card's deletion sent again), as Go's journal.MayResend.
        WHERE NOT (coalesce(NEW.entry ->> 'ref', '') <> ''
                   AND u.kind = NEW.kind AND u.ref = NEW.entry ->> 'ref');
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
