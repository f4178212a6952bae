-- API replicas keep a key → organization/permissions cache and count requests against shares of the
-- rate-limit windows that they reserve here in batches (docs/decisions.md, "API keys: cache and
-- rate-limit leases"). Two functions serve that:
--   weft_authenticate_api_key: the look-up by hash, now reserving a number of units per bucket
--     instead of counting one request (a replica of the previous release calls the one-argument
--     form, which is dropped: run the migration with the new release);
--   weft_enter_organization_as_key: the tenancy transaction's first statement for API requests; it
--     re-checks a cached key (not revoked, same organization, the permissions the request relied on)
--     before the request's work runs, so the cache never serves a revoked or narrowed key.
DROP FUNCTION weft_authenticate_api_key(text);
--> statement-breakpoint
-- Reserves up to p_units of a bucket's current window without passing p_limit. The row is locked
-- before it is read, so concurrent reservations queue instead of both reading the same count; a
-- bucket's first reservation creates the row first (ON CONFLICT DO NOTHING waits for a concurrent
-- creator) so that it can be locked like every later one. Not SECURITY DEFINER: it runs with the
-- rights of weft_authenticate_api_key, and the runtime role has none on rate_limit_counters.
CREATE FUNCTION weft_reserve_rate_units(p_bucket text, p_units integer, p_limit integer, p_window timestamptz,
                                        OUT granted integer, OUT total integer)
LANGUAGE plpgsql SET search_path = public AS $$
DECLARE
  before integer;
BEGIN
  SELECT CASE WHEN c.window_start = p_window THEN c.count ELSE 0 END INTO before
    FROM rate_limit_counters c WHERE c.bucket = p_bucket FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO rate_limit_counters (bucket, window_start, count) VALUES (p_bucket, p_window, 0)
      ON CONFLICT (bucket) DO NOTHING;
    SELECT CASE WHEN c.window_start = p_window THEN c.count ELSE 0 END INTO before
      FROM rate_limit_counters c WHERE c.bucket = p_bucket FOR UPDATE;
  END IF;
  granted := least(greatest(p_units, 0), greatest(p_limit - before, 0));
  total := before + granted;
  UPDATE rate_limit_counters SET window_start = p_window, count = total WHERE bucket = p_bucket;
END
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_reserve_rate_units(text, integer, integer, timestamptz) FROM PUBLIC;
--> statement-breakpoint
-- A key is found before its organization is known, so this runs as its owner (which bypasses RLS);
-- it reveals nothing but what the caller proved by holding the key. A bucket asked for 0 units is
-- not touched (its count comes back NULL). Buckets are locked key first, then organization, in every
-- call, so concurrent calls never wait on each other in a cycle. A refused reservation counts
-- nothing: a client over its limit does not push the window's count further.
CREATE FUNCTION weft_authenticate_api_key(p_key_hash text, p_key_units integer, p_org_units integer,
                                          p_key_limit integer, p_org_limit integer)
RETURNS TABLE (api_key_id uuid, organization_id uuid, permissions text[],
               key_granted integer, key_count integer, org_granted integer, org_count integer,
               window_start timestamptz, db_now timestamptz)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
#variable_conflict use_column
DECLARE
  found_key api_keys%ROWTYPE;
  current_window timestamptz := date_trunc('minute', now());
  key_units_granted integer := 0;
  key_total integer;
  org_units_granted integer := 0;
  org_total integer;
BEGIN
  SELECT * INTO found_key FROM api_keys WHERE key_hash = p_key_hash AND revoked_at IS NULL;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF p_key_units > 0 THEN
    SELECT r.granted, r.total INTO key_units_granted, key_total
      FROM weft_reserve_rate_units('key:' || found_key.id::text, p_key_units, p_key_limit, current_window) r;
  END IF;
  IF p_org_units > 0 THEN
    SELECT r.granted, r.total INTO org_units_granted, org_total
      FROM weft_reserve_rate_units('org:' || found_key.organization_id::text, p_org_units, p_org_limit,
                                   current_window) r;
  END IF;
  IF found_key.last_used_at IS NULL OR found_key.last_used_at < now() - interval '1 minute' THEN
    UPDATE api_keys SET last_used_at = now() WHERE id = found_key.id;
  END IF;
  RETURN QUERY SELECT found_key.id, found_key.organization_id, found_key.permissions,
                      key_units_granted, key_total, org_units_granted, org_total, current_window, now();
END
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_authenticate_api_key(text, integer, integer, integer, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_authenticate_api_key(text, integer, integer, integer, integer) TO weft_app;
--> statement-breakpoint
-- Sets the organization like set_config in the tenancy transaction, then reads the key through RLS
-- (so a key of another organization is not found): SECURITY INVOKER, it sees only what the request
-- may see. Raises WF401 for a key that is gone or revoked and WF403 for one that no longer holds a
-- permission the request relied on; either aborts the transaction before the work's statements run.
CREATE FUNCTION weft_enter_organization_as_key(p_org uuid, p_api_key_id uuid, p_permissions text[])
RETURNS void
LANGUAGE plpgsql SET search_path = public AS $$
DECLARE
  granted text[];
BEGIN
  PERFORM set_config('app.org_id', p_org::text, true);
  SELECT k.permissions INTO granted FROM api_keys k WHERE k.id = p_api_key_id AND k.revoked_at IS NULL;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'the API key is unknown or revoked' USING ERRCODE = 'WF401';
  END IF;
  IF NOT ('*' = ANY (granted) OR granted @> p_permissions) THEN
    RAISE EXCEPTION 'the API key lacks a permission this request relies on' USING ERRCODE = 'WF403';
  END IF;
END
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_enter_organization_as_key(uuid, uuid, text[]) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_enter_organization_as_key(uuid, uuid, text[]) TO weft_app;
