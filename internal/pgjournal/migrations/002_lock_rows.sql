-- The register of who holds an invoice's lock is quoted to every other
-- operator refused on that invoice (who, where, since when). An operator
-- may add the row of a lock its own session took, and change or remove
-- only rows of its own session's locks or of locks no session holds any
-- more (stale rows, replaced by the next taker): never the row of another
-- operator's lock in flight. The owner is not bound (it does not run
-- money commands).
CREATE FUNCTION paycli.lock_is_held(lock_key bigint, backend int) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.granted AND l.pid = backend
          AND l.classid::bigint = (lock_key >> 32) & 4294967295
          AND l.objid::bigint = lock_key & 4294967295 AND l.objsubid = 1)
$$;

ALTER TABLE paycli.invoice_locks ENABLE ROW LEVEL SECURITY;
CREATE POLICY invoice_locks_read ON paycli.invoice_locks FOR SELECT USING (true);
CREATE POLICY invoice_locks_add ON paycli.invoice_locks FOR INSERT
    WITH CHECK (backend_pid = pg_backend_pid());
CREATE POLICY invoice_locks_replace ON paycli.invoice_locks FOR UPDATE
    USING (backend_pid = pg_backend_pid() OR NOT paycli.lock_is_held(key, backend_pid))
    WITH CHECK (backend_pid = pg_backend_pid());
CREATE POLICY invoice_locks_remove ON paycli.invoice_locks FOR DELETE
    USING (backend_pid = pg_backend_pid() OR NOT paycli.lock_is_held(key, backend_pid));
