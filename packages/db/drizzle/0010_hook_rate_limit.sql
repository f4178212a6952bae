-- Inbound hooks carry no API key, so the per-token rate limit is counted in the same round trip as
-- the token look-up (the runtime role has no rights on rate_limit_counters). The bucket is the
-- workflow, not the token: regenerating the token must not reset the count, and the counter table
-- never holds a credential. Unknown tokens are not counted (nothing to count them against).
DROP FUNCTION weft_find_hook(text);
--> statement-breakpoint
CREATE FUNCTION weft_find_hook(p_token text)
RETURNS TABLE (workflow_id uuid, organization_id uuid, status text, trigger_type text, trigger_config jsonb,
               hook_count integer, window_start timestamptz)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
#variable_conflict use_column
DECLARE
  hooked workflows%ROWTYPE;
  current_window timestamptz := date_trunc('minute', now());
  counted integer;
BEGIN
  SELECT * INTO hooked FROM workflows WHERE webhook_token = p_token;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  INSERT INTO rate_limit_counters AS c (bucket, window_start, count)
  VALUES ('hook:' || hooked.id::text, current_window, 1)
  ON CONFLICT (bucket) DO UPDATE SET
    count = CASE WHEN c.window_start = EXCLUDED.window_start THEN c.count + 1 ELSE 1 END,
    window_start = EXCLUDED.window_start
  RETURNING c.count INTO counted;
  RETURN QUERY SELECT hooked.id, hooked.organization_id, hooked.status, hooked.trigger_type,
                      hooked.trigger_config, counted, current_window;
END
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_find_hook(text) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_find_hook(text) TO weft_app;
