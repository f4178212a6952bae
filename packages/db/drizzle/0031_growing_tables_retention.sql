CREATE INDEX "chat_inbound_messages_created" ON "chat_inbound_messages" USING btree ("created_at");--> statement-breakpoint
-- Provider message ids of inbound chat messages, kept to drop a provider's redelivery: across
-- organizations, one bounded batch per call, rows received before the cutoff (the caller loops).
CREATE FUNCTION weft_prune_chat_inbound_messages(p_created_before timestamptz, p_limit integer)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
  WITH doomed AS (
    SELECT organization_id, provider_message_id FROM chat_inbound_messages
    WHERE created_at < p_created_before ORDER BY created_at LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  ), gone AS (
    DELETE FROM chat_inbound_messages m USING doomed d
    WHERE m.organization_id = d.organization_id AND m.provider_message_id = d.provider_message_id
    RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_prune_chat_inbound_messages(timestamptz, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_prune_chat_inbound_messages(timestamptz, integer) TO weft_app;
--> statement-breakpoint
-- Rate-limit buckets are one-minute windows (API keys, organizations, hooks, sign-in forms per client
-- IP, second-factor sessions): a bucket whose window is long over holds nothing a request needs (its
-- next request starts a new window), yet every new client IP adds one. Not a tenant table.
CREATE FUNCTION weft_prune_rate_limit_counters(p_window_before timestamptz, p_limit integer)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
  WITH doomed AS (
    SELECT bucket FROM rate_limit_counters WHERE window_start < p_window_before
    LIMIT p_limit FOR UPDATE SKIP LOCKED
  ), gone AS (
    DELETE FROM rate_limit_counters c USING doomed d WHERE c.bucket = d.bucket RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_prune_rate_limit_counters(timestamptz, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_prune_rate_limit_counters(timestamptz, integer) TO weft_app;
