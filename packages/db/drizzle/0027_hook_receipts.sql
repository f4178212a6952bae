CREATE TABLE "hook_receipts" (
	"organization_id" uuid NOT NULL,
	"workflow_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"key_hash" text NOT NULL,
	"execution_ids" uuid[] NOT NULL,
	"received_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "hook_receipts_workflow_id_kind_key_hash_pk" PRIMARY KEY("workflow_id","kind","key_hash")
);
--> statement-breakpoint
ALTER TABLE "hook_receipts" ADD CONSTRAINT "hook_receipts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hook_receipts" ADD CONSTRAINT "hook_receipts_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "hook_receipts_received_at" ON "hook_receipts" USING btree ("received_at");--> statement-breakpoint
ALTER TABLE hook_receipts ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE hook_receipts FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON hook_receipts USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
-- Receipts older than the dedup window are forgotten across organizations by the worker's sweeper, a
-- batch at a time (a long-idle deployment must not delete millions of rows in one statement).
-- Returns how many rows went; the caller repeats while a whole batch went.
CREATE FUNCTION weft_prune_hook_receipts(p_older_than interval, p_limit integer)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
  WITH doomed AS (
    SELECT workflow_id, kind, key_hash FROM hook_receipts
    WHERE received_at < now() - p_older_than
    ORDER BY received_at LIMIT p_limit
  ), gone AS (
    DELETE FROM hook_receipts r USING doomed d
    WHERE r.workflow_id = d.workflow_id AND r.kind = d.kind AND r.key_hash = d.key_hash
    RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_prune_hook_receipts(interval, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_prune_hook_receipts(interval, integer) TO weft_app;
