-- Tenancy: the runtime role, Row-Level Security on every tenant table, and the one function that
-- may look across organizations (API-key authentication + rate-limit counting, in one round trip).

DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'weft_app') THEN
    CREATE ROLE weft_app NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
  END IF;
END $$;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO weft_app;
--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO weft_app;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO weft_app;
--> statement-breakpoint
-- The audit trail is append-only for the application.
REVOKE UPDATE, DELETE ON audit_logs FROM weft_app;
--> statement-breakpoint
REVOKE ALL ON rate_limit_counters FROM weft_app;
--> statement-breakpoint
-- No org setting (or an empty one) means no rows, never an error.
CREATE FUNCTION weft_current_org() RETURNS uuid LANGUAGE sql STABLE AS
$$ SELECT nullif(current_setting('app.org_id', true), '')::uuid $$;
--> statement-breakpoint
ALTER TABLE organizations ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE organizations FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON organizations USING (id = weft_current_org()) WITH CHECK (id = weft_current_org());
--> statement-breakpoint
ALTER TABLE users ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE users FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON users USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
ALTER TABLE api_keys ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE api_keys FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON api_keys USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
ALTER TABLE workflows ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE workflows FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON workflows USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
ALTER TABLE audit_logs ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE audit_logs FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON audit_logs USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
ALTER TABLE idempotency_keys ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE idempotency_keys FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON idempotency_keys USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
-- Runs as its owner (the migration role, which bypasses RLS) because a key must be found before its
-- organization is known. It reveals nothing but what the caller proved by holding the key.
CREATE FUNCTION weft_authenticate_api_key(p_key_hash text)
RETURNS TABLE (api_key_id uuid, organization_id uuid, permissions text[], key_count integer, org_count integer, window_start timestamptz)
LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
  WITH k AS (
    SELECT id, organization_id, permissions, last_used_at FROM api_keys
    WHERE key_hash = p_key_hash AND revoked_at IS NULL
  ),
  w AS (SELECT date_trunc('minute', now()) AS start),
  touched AS (
    UPDATE api_keys SET last_used_at = now()
    WHERE id = (SELECT id FROM k) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
  ),
  counted AS (
    INSERT INTO rate_limit_counters AS c (bucket, window_start, count)
    SELECT b.bucket, w.start, 1
    FROM k, w, LATERAL (VALUES ('key:' || k.id::text), ('org:' || k.organization_id::text)) AS b(bucket)
    ORDER BY b.bucket
    ON CONFLICT (bucket) DO UPDATE SET
      count = CASE WHEN c.window_start = EXCLUDED.window_start THEN c.count + 1 ELSE 1 END,
      window_start = EXCLUDED.window_start
    RETURNING c.bucket, c.count
  )
  SELECT k.id, k.organization_id, k.permissions,
    (SELECT count FROM counted WHERE bucket LIKE 'key:%'),
    (SELECT count FROM counted WHERE bucket LIKE 'org:%'),
    (SELECT start FROM w)
  FROM k
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_authenticate_api_key(text) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_authenticate_api_key(text) TO weft_app;
--> statement-breakpoint
-- Logging in with e-mail and password also has to find a user before knowing the organization.
CREATE FUNCTION weft_find_user_by_email(p_email text)
RETURNS TABLE (user_id uuid, organization_id uuid, password_hash text, role text)
LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
  SELECT id, organization_id, password_hash, role FROM users WHERE lower(email) = lower(p_email)
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_find_user_by_email(text) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_find_user_by_email(text) TO weft_app;
