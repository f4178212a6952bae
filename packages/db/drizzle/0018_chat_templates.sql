CREATE TABLE "chat_templates" (
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"language" text NOT NULL,
	"status" text NOT NULL,
	"category" text,
	"body_variables" integer NOT NULL,
	"synced_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_templates_organization_id_name_language_pk" PRIMARY KEY("organization_id","name","language")
);
--> statement-breakpoint
ALTER TABLE "chat_templates" ADD CONSTRAINT "chat_templates_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE chat_templates ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE chat_templates FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON chat_templates USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
