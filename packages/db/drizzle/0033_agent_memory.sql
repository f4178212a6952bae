CREATE TABLE "agent_memory" (
	"organization_id" uuid NOT NULL,
	"key_hash" text NOT NULL,
	"seq" bigint NOT NULL,
	"messages" jsonb NOT NULL,
	"step_key" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_memory_organization_id_key_hash_seq_pk" PRIMARY KEY("organization_id","key_hash","seq")
);
--> statement-breakpoint
ALTER TABLE "agent_memory" ADD CONSTRAINT "agent_memory_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "agent_memory_step_key" ON "agent_memory" USING btree ("organization_id","step_key");--> statement-breakpoint
CREATE INDEX "agent_memory_created_at" ON "agent_memory" USING btree ("created_at");--> statement-breakpoint
ALTER TABLE agent_memory ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE agent_memory FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON agent_memory USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
-- Agent conversation turns past the memory retention, across organizations, one bounded batch per
-- call (the caller loops while a whole batch went).
CREATE FUNCTION weft_prune_agent_memory(p_created_before timestamptz, p_limit integer)
RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
  WITH doomed AS (
    SELECT organization_id, key_hash, seq FROM agent_memory
    WHERE created_at < p_created_before ORDER BY created_at LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  ), gone AS (
    DELETE FROM agent_memory m USING doomed d
    WHERE m.organization_id = d.organization_id AND m.key_hash = d.key_hash AND m.seq = d.seq
    RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_prune_agent_memory(timestamptz, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_prune_agent_memory(timestamptz, integer) TO weft_app;
