CREATE TABLE "message_outbox" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"step_key" text NOT NULL,
	"channel" text NOT NULL,
	"status" text NOT NULL,
	"result" jsonb,
	"error" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "message_outbox" ADD CONSTRAINT "message_outbox_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "message_outbox_step" ON "message_outbox" USING btree ("organization_id","step_key");--> statement-breakpoint
CREATE INDEX "message_outbox_org_created" ON "message_outbox" USING btree ("organization_id","created_at" DESC NULLS LAST);--> statement-breakpoint
ALTER TABLE message_outbox ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE message_outbox FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON message_outbox USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
