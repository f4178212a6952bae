DROP INDEX "executions_org_workflow";--> statement-breakpoint
DROP INDEX "executions_org_status";--> statement-breakpoint
DROP INDEX "executions_org_started";--> statement-breakpoint
CREATE INDEX "executions_org_workflow_started" ON "executions" USING btree ("organization_id","workflow_id","started_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "executions_org_status_started" ON "executions" USING btree ("organization_id","status","started_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "executions_finished_completed" ON "executions" USING btree ("completed_at") WHERE "executions"."status" in ('success', 'partial', 'failed', 'cancelled');--> statement-breakpoint
CREATE INDEX "executions_org_started" ON "executions" USING btree ("organization_id","started_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
-- Retention (EXECUTION_RETENTION_DAYS): deletes one bounded batch of finished executions across all
-- organizations (their steps and stored outputs go with them: ON DELETE CASCADE), then the message
-- outbox rows older than the same cutoff. Each call is its own short transaction; the caller loops.
-- A failed execution stays while its run is parked for a retry (p_retry_window after it failed, unless
-- the run already reported retry_expired): deleting it would make the run's last report hit a missing
-- row. Returns the executions deleted, or -1 when another worker holds the pruning lock.
CREATE FUNCTION weft_prune_executions(p_finished_before timestamptz, p_retry_window interval, p_limit integer)
RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public AS $$
DECLARE
  v_deleted integer;
BEGIN
  -- One pruner at a time, whatever the number of workers: the others skip this tick instead of
  -- doubling the I/O. Transaction-scoped, so a crashed worker never leaves it held.
  IF NOT pg_try_advisory_xact_lock(hashtext('weft_prune_executions')) THEN
    RETURN -1;
  END IF;
  WITH doomed AS (
    SELECT id FROM executions
    WHERE status IN ('success', 'partial', 'failed', 'cancelled')
      AND completed_at < p_finished_before
      AND (status <> 'failed' OR error->>'code' = 'retry_expired' OR completed_at < now() - p_retry_window)
    ORDER BY completed_at
    LIMIT p_limit
    -- A row being retried right now (its row is locked by the retry) is left for the next tick.
    FOR UPDATE SKIP LOCKED
  )
  DELETE FROM executions e USING doomed WHERE e.id = doomed.id;
  GET DIAGNOSTICS v_deleted = ROW_COUNT;
  -- Sends of pruned executions (a step key starts with its execution id): once the execution is gone
  -- and the send is older than both the cutoff and the retry window, no retry can ask for it again.
  DELETE FROM message_outbox m
  WHERE m.id IN (
    SELECT o.id FROM message_outbox o
    WHERE o.created_at < least(p_finished_before, now() - p_retry_window)
      AND NOT EXISTS (
        SELECT 1 FROM executions x
        WHERE x.id = CASE
          WHEN split_part(o.step_key, ':', 1) ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
          THEN split_part(o.step_key, ':', 1)::uuid
        END
      )
    LIMIT p_limit
  );
  RETURN v_deleted;
END $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_prune_executions(timestamptz, interval, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_prune_executions(timestamptz, interval, integer) TO weft_app;
