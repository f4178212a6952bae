CREATE TABLE "local_call_results" (
	"organization_id" uuid NOT NULL,
	"execution_id" uuid NOT NULL,
	"call_key" text NOT NULL,
	"outcome" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "local_call_results_execution_id_call_key_pk" PRIMARY KEY("execution_id","call_key")
);
--> statement-breakpoint
ALTER TABLE "local_call_results" ADD CONSTRAINT "local_call_results_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "local_call_results" ADD CONSTRAINT "local_call_results_execution_id_executions_id_fk" FOREIGN KEY ("execution_id") REFERENCES "public"."executions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "local_call_results_created" ON "local_call_results" USING btree ("created_at");--> statement-breakpoint
ALTER TABLE local_call_results ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE local_call_results FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON local_call_results USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
-- A local call's answer is needed only until the workflow task that follows the call completes
-- (seconds; longer only while no worker runs). Across organizations, one bounded batch per call:
-- rows of executions that finished before p_finished_before, and every row written before
-- p_created_before (the caller loops).
CREATE FUNCTION weft_prune_local_call_results(p_created_before timestamptz, p_finished_before timestamptz, p_limit integer)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
  WITH doomed AS (
    SELECT r.execution_id, r.call_key FROM local_call_results r
    WHERE r.created_at < p_created_before
       OR EXISTS (SELECT 1 FROM executions e WHERE e.id = r.execution_id AND e.completed_at < p_finished_before)
    LIMIT p_limit
    FOR UPDATE OF r SKIP LOCKED
  ), gone AS (
    DELETE FROM local_call_results r USING doomed d
    WHERE r.execution_id = d.execution_id AND r.call_key = d.call_key
    RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_prune_local_call_results(timestamptz, timestamptz, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_prune_local_call_results(timestamptz, timestamptz, integer) TO weft_app;
