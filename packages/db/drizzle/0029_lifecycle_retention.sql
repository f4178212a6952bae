ALTER TABLE "poll_seen_items" ADD COLUMN "last_seen_at" timestamp (3) with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
CREATE INDEX "audit_logs_created" ON "audit_logs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires" ON "idempotency_keys" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "poll_seen_items_last_seen" ON "poll_seen_items" USING btree ("last_seen_at");--> statement-breakpoint
CREATE INDEX "web_sessions_expires" ON "web_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_finished_created" ON "webhook_deliveries" USING btree ("created_at") WHERE "webhook_deliveries"."status" in ('succeeded', 'failed');--> statement-breakpoint
-- Retention of the other growing tables, across organizations, one bounded batch per call (the
-- caller loops while a whole batch went; each call is its own short transaction). Each returns the
-- rows it deleted.
-- Outbound webhook deliveries that are over (succeeded, or failed for good) and older than the cutoff;
-- pending and retrying ones stay whatever their age.
CREATE FUNCTION weft_prune_webhook_deliveries(p_created_before timestamptz, p_limit integer)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
  WITH doomed AS (
    SELECT id FROM webhook_deliveries
    WHERE status IN ('succeeded', 'failed') AND created_at < p_created_before
    ORDER BY created_at LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  ), gone AS (
    DELETE FROM webhook_deliveries d USING doomed WHERE d.id = doomed.id RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$$;
--> statement-breakpoint
-- The audit log is append-only for the runtime role (no DELETE): only this reviewed function, owned
-- by the owner role, removes entries, and only those older than AUDIT_LOG_RETENTION_DAYS.
CREATE FUNCTION weft_prune_audit_logs(p_created_before timestamptz, p_limit integer)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
  WITH doomed AS (
    SELECT id FROM audit_logs WHERE created_at < p_created_before ORDER BY created_at LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  ), gone AS (
    DELETE FROM audit_logs a USING doomed WHERE a.id = doomed.id RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$$;
--> statement-breakpoint
-- A polling dedup key is needed while the source may still list its item. It goes once the item was
-- absent from its workflow's latest successful poll (polls refresh last_seen_at of the keys they see,
-- at most daily, so a key seen then is at most a day older than that poll) and was last seen before
-- p_unseen_before, and the execution it started was pruned. Keys of workflows whose last poll failed,
-- or that never polled, stay.
CREATE FUNCTION weft_prune_poll_seen_items(p_unseen_before timestamptz, p_limit integer)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
  WITH doomed AS (
    SELECT i.workflow_id, i.dedup_key FROM poll_seen_items i
    JOIN poll_states p ON p.workflow_id = i.workflow_id
    WHERE i.last_seen_at < p_unseen_before
      AND p.last_status = 'ok'
      AND i.last_seen_at < p.last_polled_at - interval '1 day'
      -- The item's execution id derives from (workflow, key): a re-listed item can run again only
      -- once the execution of its first run is gone (EXECUTION_RETENTION_DAYS).
      AND NOT EXISTS (SELECT 1 FROM executions x WHERE x.id = i.execution_id)
    ORDER BY i.last_seen_at LIMIT p_limit
    FOR UPDATE OF i SKIP LOCKED
  ), gone AS (
    DELETE FROM poll_seen_items s USING doomed d
    WHERE s.workflow_id = d.workflow_id AND s.dedup_key = d.dedup_key
    RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$$;
--> statement-breakpoint
-- Expired records only: idempotency records past their 10 minutes (a replay then runs anew anyway,
-- their stored response bodies are the bulk), web sessions past their absolute lifetime.
CREATE FUNCTION weft_prune_expired_records(p_limit integer)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
  WITH keys AS (
    SELECT organization_id, key FROM idempotency_keys WHERE expires_at < now()
    ORDER BY expires_at LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  ), gone_keys AS (
    DELETE FROM idempotency_keys i USING keys k
    WHERE i.organization_id = k.organization_id AND i.key = k.key AND i.expires_at < now()
    RETURNING 1
  ), sessions AS (
    SELECT id FROM web_sessions WHERE expires_at < now() ORDER BY expires_at LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  ), gone_sessions AS (
    DELETE FROM web_sessions w USING sessions s WHERE w.id = s.id RETURNING 1
  )
  SELECT ((SELECT count(*) FROM gone_keys) + (SELECT count(*) FROM gone_sessions))::integer
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_prune_webhook_deliveries(timestamptz, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_prune_webhook_deliveries(timestamptz, integer) TO weft_app;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_prune_audit_logs(timestamptz, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_prune_audit_logs(timestamptz, integer) TO weft_app;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_prune_poll_seen_items(timestamptz, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_prune_poll_seen_items(timestamptz, integer) TO weft_app;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_prune_expired_records(integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_prune_expired_records(integer) TO weft_app;
