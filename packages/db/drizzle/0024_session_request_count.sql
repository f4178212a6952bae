-- Browser sessions count against a per-user limit per minute, like API keys do per key: the count is
-- taken in the same statement that authenticates the session (no extra round trip).
DROP FUNCTION weft_authenticate_session(text, integer);
--> statement-breakpoint
CREATE FUNCTION weft_authenticate_session(p_token_hash text, p_idle_minutes integer)
RETURNS TABLE (session_id uuid, user_id uuid, email text, name text, organization_id uuid, role text,
               awaiting_second_factor boolean, two_factor_enabled boolean, request_count integer,
               window_start timestamptz)
LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
  WITH s AS (
    SELECT * FROM web_sessions
    WHERE token_hash = p_token_hash AND expires_at > now()
      AND last_seen_at > now() - make_interval(mins => p_idle_minutes)
  ),
  touched AS (
    UPDATE web_sessions SET last_seen_at = now()
    WHERE id = (SELECT id FROM s) AND last_seen_at < now() - interval '1 minute'
  ),
  counted AS (
    INSERT INTO rate_limit_counters AS c (bucket, window_start, count)
    SELECT 'user:' || s.user_id::text, date_trunc('minute', now()), 1 FROM s
    ON CONFLICT (bucket) DO UPDATE SET
      count = CASE WHEN c.window_start = EXCLUDED.window_start THEN c.count + 1 ELSE 1 END,
      window_start = EXCLUDED.window_start
    RETURNING c.count, c.window_start
  ),
  m AS (
    SELECT m.organization_id, m.role FROM memberships m, s
    WHERE m.user_id = s.user_id
    ORDER BY (m.organization_id = s.current_organization_id) DESC NULLS LAST, m.created_at
    LIMIT 1
  )
  SELECT s.id, u.id, u.email, u.name, m.organization_id, m.role, s.awaiting_second_factor,
         u.totp_enabled_at IS NOT NULL, (SELECT count FROM counted), (SELECT window_start FROM counted)
  FROM s JOIN users u ON u.id = s.user_id LEFT JOIN m ON true
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_authenticate_session(text, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_authenticate_session(text, integer) TO weft_app;
