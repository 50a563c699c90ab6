-- Operators get what paycli needs and nothing more, and a line says one
-- thing: docs/journal.md ("The database's own rules", "What an operator
-- can and cannot see").
--
-- Errors a client tells apart by SQLSTATE (class PC, paycli's own; 003
-- has PC001-PC003):
--   PC005 a line whose entry is not a journal line paycli reads (not an
--         object, a field of the wrong type, a field's name in another
--         case, no time)

-- A line's columns are its entry's, as paycli's readers (Go, which read
-- the entry) and the rules (SQL, which read the columns) must both see
-- one line: a column a writer sent is replaced by what the entry says.
-- Each value is the column paycli writes (pgjournal's lineArgs): a text
-- as it is, or with its NULs escaped (storable.go: in an escaped entry
-- every string is escaped, a column only when it holds a NUL); a kind
-- left out is a walletpay (journal.Entry.OpKind); the time to the
-- microsecond, cut as pgx cuts it.
--
-- The functions' literals are read alike whatever a session's
-- standard_conforming_strings (E'' strings, or the setting pinned).
CREATE FUNCTION paycli.entry_column(entry jsonb, field text) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT CASE
        WHEN entry -> 'nul_escaped' IS DISTINCT FROM 'true'::jsonb THEN v
        WHEN strpos(replace(v, E'\\\\', E''), E'\\0') > 0 THEN v -- it held a NUL: escaped, as its column
        ELSE replace(v, E'\\\\', E'\\') END
    FROM (SELECT coalesce(entry ->> field, E'') AS v) s
$$;

-- The fields of a journal line (journal.Entry) and of its evidence
-- (journal.Evidence) with the JSON type paycli reads each as: a line
-- paycli cannot read (json.Unmarshal fails, and readers skip it) would
-- still count in the rules. Go matches a field's name in any case
-- (encoding/json): a name in another case would be read by one side
-- only. pgjournal's TestEntryFieldsKnownToTheDatabase keeps these lists
-- equal to Go's.
CREATE FUNCTION paycli.entry_fields() RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_build_object(
        'type', 'string', 'kind', 'string', 'gateway', 'string', 'attempt', 'string', 'time', 'time',
        'profile', 'string', 'base_url', 'string', 'invoice', 'string', 'amount', 'string', 'currency', 'string',
        'card', 'string', 'wallet', 'string', 'ref', 'string', 'key', 'string', 'reason', 'string',
        'deadline', 'time', 'outcome', 'string', 'status_code', 'int', 'order_no', 'string', 'message', 'string',
        'status_description', 'string', 'payment_reason_code', 'string', 'payment_reason_code_detail', 'string',
        'original_bank_error_code', 'string', 'original_bank_error_description', 'string',
        'transaction_status', 'string', 'via', 'string', 'evidence', 'evidence')
$$;

CREATE FUNCTION paycli.evidence_fields() RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_build_object(
        'status_code', 'int', 'status_description', 'string', 'transaction_status', 'string', 'order_id', 'string',
        'invoice_id', 'string', 'transaction_type', 'string', 'payment_reason_code', 'string', 'fields', 'texts')
$$;

CREATE FUNCTION paycli.misfit_fields(obj jsonb, spec jsonb) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT string_agg(k.key, E', ' ORDER BY k.key)
    FROM jsonb_each(obj) k
    JOIN jsonb_each_text(spec) f ON lower(translate(k.key, E'\u017F\u212A', E'sk')) = f.key
    WHERE k.key <> f.key OR NOT CASE
        WHEN jsonb_typeof(k.value) = E'null' THEN true
        WHEN f.value = E'string' THEN jsonb_typeof(k.value) = E'string'
        WHEN f.value = E'time' THEN jsonb_typeof(k.value) = E'string'
            AND k.value #>> E'{}' ~ E'^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?(Z|[-+][0-9]{2}:[0-9]{2})$'
        WHEN f.value = E'int' THEN jsonb_typeof(k.value) = E'number' AND k.value::text ~ E'^-?[0-9]{1,18}$'
        WHEN f.value = E'evidence' THEN jsonb_typeof(k.value) = E'object'
            AND paycli.misfit_fields(k.value, paycli.evidence_fields()) IS NULL
        WHEN f.value = E'texts' THEN jsonb_typeof(k.value) = E'object'
            AND NOT EXISTS (SELECT 1 FROM jsonb_each(k.value) x WHERE jsonb_typeof(x.value) NOT IN (E'string', E'null'))
        ELSE false END
$$;

CREATE FUNCTION paycli.line_columns() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp SET standard_conforming_strings = on AS $$
DECLARE
    misfits text;
BEGIN
    IF jsonb_typeof(NEW.entry) IS DISTINCT FROM 'object' THEN
        RAISE EXCEPTION 'a journal line whose entry is not a JSON object is refused' USING ERRCODE = 'PC005';
    END IF;
    misfits := paycli.misfit_fields(NEW.entry, paycli.entry_fields());
    IF misfits IS NOT NULL THEN
        RAISE EXCEPTION 'a journal line whose entry paycli cannot read is refused: %', misfits
            USING ERRCODE = 'PC005',
                  HINT = 'Each field has the name and JSON type paycli writes (docs/journal.md).';
    END IF;
    IF jsonb_typeof(NEW.entry -> 'time') IS DISTINCT FROM 'string' THEN
        RAISE EXCEPTION 'a journal line without a time is refused' USING ERRCODE = 'PC005';
    END IF;
    NEW.attempt := paycli.entry_column(NEW.entry, 'attempt');
    NEW.type := paycli.entry_column(NEW.entry, 'type');
    NEW.kind := coalesce(nullif(paycli.entry_column(NEW.entry, 'kind'), ''), 'walletpay');
    NEW.gateway := paycli.entry_column(NEW.entry, 'gateway');
    NEW.invoice := paycli.entry_column(NEW.entry, 'invoice');
    NEW.outcome := paycli.entry_column(NEW.entry, 'outcome');
    NEW.at := regexp_replace(NEW.entry ->> 'time', '([.][0-9]{6})[0-9]+', '\1')::timestamptz;
    RETURN NEW;
END $$;
-- Triggers fire in name order: this one before journal_lines_stamp and
-- journal_lines_verify, which read the columns it sets.
CREATE TRIGGER journal_lines_columns BEFORE INSERT ON paycli.journal_lines
    FOR EACH ROW EXECUTE FUNCTION paycli.line_columns();

-- The invoice locks' register is written only through the functions
-- below, which run as the journal's owner: an operator holds no right on
-- the table but SELECT, so none that lets it LOCK TABLE the register (in
-- a mode beyond ACCESS SHARE) and stop every command of the desk. They
-- name the holder as the database knows it (session_user: in a function
-- of the owner, current_user is the owner).
CREATE OR REPLACE FUNCTION paycli.stamp_lock() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.operator := session_user;
    NEW.backend_pid := pg_backend_pid();
    RETURN NEW;
END $$;

-- paycli.holds_invoice_lock says whether this session holds key's
-- invoice lock (a session advisory lock, exclusive, in this database).
CREATE FUNCTION paycli.holds_invoice_lock(lock_key bigint) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
    SELECT EXISTS (SELECT 1 FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.granted AND l.mode = 'ExclusiveLock' AND l.pid = pg_backend_pid()
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND l.classid::bigint = (lock_key >> 32) & 4294967295
          AND l.objid::bigint = lock_key & 4294967295 AND l.objsubid = 1)
$$;

-- Writes who holds key's lock, for a session that holds it; any other
-- row of the key is stale (only one session holds it) and replaced.
-- Returns since when, on the database's clock.
CREATE FUNCTION paycli.hold_invoice_lock(lock_key bigint, lock_gateway text, lock_invoice text, lock_command text,
    lock_pid int, lock_os_user text, lock_host text) RETURNS timestamptz
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    held_since timestamptz;
BEGIN
    IF NOT paycli.holds_invoice_lock(lock_key) THEN
        RAISE EXCEPTION 'the holder of invoice lock % is written only by the session that holds it', lock_key
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    INSERT INTO paycli.invoice_locks AS h (key, gateway, invoice, command, pid, os_user, host, since)
    VALUES (lock_key, lock_gateway, lock_invoice, lock_command, lock_pid, lock_os_user, lock_host, now())
    ON CONFLICT (key) DO UPDATE SET gateway = EXCLUDED.gateway, invoice = EXCLUDED.invoice, command = EXCLUDED.command,
        pid = EXCLUDED.pid, os_user = EXCLUDED.os_user, host = EXCLUDED.host, since = EXCLUDED.since
    RETURNING h.since INTO held_since;
    RETURN held_since;
END $$;

-- Removes this session's row of key's lock, before it releases the lock.
CREATE FUNCTION paycli.release_invoice_lock(lock_key bigint) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DELETE FROM paycli.invoice_locks WHERE key = lock_key AND backend_pid = pg_backend_pid()
$$;

-- Who holds key's lock, whoever it is: the row of the session that holds
-- it (described), else the session itself as the database shows it (a
-- lock taken by hand, pg_advisory_lock in psql, or by a paycli that has
-- not written its row yet): its login role, application, client address
-- and start. The client's address and start are shown to the journal's
-- owner only if it may read other roles' sessions (pg_read_all_stats);
-- else they are null.
CREATE FUNCTION paycli.invoice_lock_holder(lock_key bigint)
RETURNS TABLE (command text, pid int, since timestamptz, host text, operator name, described boolean)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    WITH held AS (
        SELECT l.pid FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.granted
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND l.classid::bigint = (lock_key >> 32) & 4294967295
          AND l.objid::bigint = lock_key & 4294967295 AND l.objsubid = 1
    )
    SELECT * FROM (
        SELECT h.command, h.pid, h.since, h.host, h.operator, true AS described
        FROM paycli.invoice_locks h JOIN held ON held.pid = h.backend_pid
        WHERE h.key = lock_key
        UNION ALL
        SELECT 'database session' || coalesce(' (' || nullif(a.application_name, '') || ')', ''), held.pid, a.backend_start,
            coalesce(a.client_hostname, host(a.client_addr), ''), coalesce(a.usename, ''), false
        FROM held LEFT JOIN pg_stat_activity a ON a.pid = held.pid
    ) holders
    ORDER BY described DESC, pid
    LIMIT 1
$$;

REVOKE ALL ON FUNCTION paycli.hold_invoice_lock(bigint, text, text, text, int, text, text),
    paycli.release_invoice_lock(bigint), paycli.invoice_lock_holder(bigint) FROM PUBLIC;

-- The rights pgjournal.Grant gave until now, narrowed to what it gives
-- from this step on: on the register SELECT only, on the lines SELECT and
-- INSERT only (no right that allows LOCK TABLE beyond ROW EXCLUSIVE), and
-- the register's functions to every role that may append lines.
DO $$
DECLARE
    r record;
    maintain text := CASE WHEN current_setting('server_version_num')::int >= 170000 THEN ', MAINTAIN' ELSE '' END;
BEGIN
    FOR r IN SELECT DISTINCT c.relname, a.grantee::regrole AS grantee
             FROM pg_class c, aclexplode(c.relacl) a
             WHERE c.oid IN ('paycli.invoice_locks'::regclass, 'paycli.journal_lines'::regclass)
               AND a.grantee <> 0 AND a.grantee <> c.relowner
    LOOP
        IF r.relname = 'invoice_locks' THEN
            EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER%s ON paycli.invoice_locks FROM %s', maintain, r.grantee);
        ELSE
            EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER%s ON paycli.journal_lines FROM %s', maintain, r.grantee);
            IF has_table_privilege(r.grantee, 'paycli.journal_lines', 'INSERT') THEN
                EXECUTE format('GRANT EXECUTE ON FUNCTION paycli.hold_invoice_lock(bigint, text, text, text, int, text, text), '
                    'paycli.release_invoice_lock(bigint), paycli.invoice_lock_holder(bigint) TO %s', r.grantee);
            END IF;
        END IF;
    END LOOP;
END $$;
