CREATE TABLE "approvals" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"execution_id" uuid NOT NULL,
	"workflow_id" uuid NOT NULL,
	"node_id" text NOT NULL,
	"request_key" text NOT NULL,
	"title" text NOT NULL,
	"message" text NOT NULL,
	"status" text NOT NULL,
	"decided_by" text,
	"decided_via" text,
	"comment" text,
	"decided_at" timestamp (3) with time zone,
	"expires_at" timestamp (3) with time zone,
	"link_tokens" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"reply_code" text,
	"chat_recipient_hash" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_execution_id_executions_id_fk" FOREIGN KEY ("execution_id") REFERENCES "public"."executions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "approvals_request_key" ON "approvals" USING btree ("organization_id","request_key");--> statement-breakpoint
CREATE INDEX "approvals_org_status_created" ON "approvals" USING btree ("organization_id","status","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "approvals_execution" ON "approvals" USING btree ("execution_id");--> statement-breakpoint
CREATE UNIQUE INDEX "approvals_pending_reply_code" ON "approvals" USING btree ("organization_id","reply_code") WHERE status = 'pending' and reply_code is not null;--> statement-breakpoint
ALTER TABLE approvals ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE approvals FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON approvals USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
-- A signed approval link arrives without a session or key: its approval id names the organization
-- (the link's signature is checked by the caller before anything of the approval is shown or changed).
CREATE FUNCTION weft_approval_organization(p_approval_id uuid)
RETURNS uuid
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT organization_id FROM approvals WHERE id = p_approval_id
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_approval_organization(uuid) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_approval_organization(uuid) TO weft_app;
