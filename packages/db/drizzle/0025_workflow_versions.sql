CREATE TABLE "workflow_versions" (
	"organization_id" uuid NOT NULL,
	"workflow_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"snapshot" jsonb NOT NULL,
	"saved_by_user_id" uuid,
	"saved_by_api_key_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workflow_versions_workflow_id_version_pk" PRIMARY KEY("workflow_id","version")
);
--> statement-breakpoint
ALTER TABLE "workflow_versions" ADD CONSTRAINT "workflow_versions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_versions" ADD CONSTRAINT "workflow_versions_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "workflow_versions_org" ON "workflow_versions" USING btree ("organization_id");--> statement-breakpoint
ALTER TABLE workflow_versions ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE workflow_versions FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON workflow_versions USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
-- History is append-only for the application.
REVOKE UPDATE ON workflow_versions FROM weft_app;
