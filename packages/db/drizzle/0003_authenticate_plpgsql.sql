-- Same contract as in 0001, rewritten in PL/pgSQL: its statements keep cached plans per session,
-- where a SQL function with data-modifying CTEs is planned again on every call (every API request).
-- Counters are taken key first, then organization, in every request, so concurrent requests never
-- wait on each other in a cycle.
CREATE OR REPLACE FUNCTION weft_authenticate_api_key(p_key_hash text)
RETURNS TABLE (api_key_id uuid, organization_id uuid, permissions text[], key_count integer, org_count integer, window_start timestamptz)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
#variable_conflict use_column
DECLARE
  found_key api_keys%ROWTYPE;
  current_window timestamptz := date_trunc('minute', now());
  counted_key integer;
  counted_org integer;
BEGIN
  SELECT * INTO found_key FROM api_keys WHERE key_hash = p_key_hash AND revoked_at IS NULL;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  INSERT INTO rate_limit_counters AS c (bucket, window_start, count)
  VALUES ('key:' || found_key.id::text, current_window, 1)
  ON CONFLICT (bucket) DO UPDATE SET
    count = CASE WHEN c.window_start = EXCLUDED.window_start THEN c.count + 1 ELSE 1 END,
    window_start = EXCLUDED.window_start
  RETURNING c.count INTO counted_key;
  INSERT INTO rate_limit_counters AS c (bucket, window_start, count)
  VALUES ('org:' || found_key.organization_id::text, current_window, 1)
  ON CONFLICT (bucket) DO UPDATE SET
    count = CASE WHEN c.window_start = EXCLUDED.window_start THEN c.count + 1 ELSE 1 END,
    window_start = EXCLUDED.window_start
  RETURNING c.count INTO counted_org;
  IF found_key.last_used_at IS NULL OR found_key.last_used_at < now() - interval '1 minute' THEN
    UPDATE api_keys SET last_used_at = now() WHERE id = found_key.id;
  END IF;
  RETURN QUERY SELECT found_key.id, found_key.organization_id, found_key.permissions, counted_key, counted_org, current_window;
END
$$;
