CREATE TABLE "credentials" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"public_fields" jsonb NOT NULL,
	"secret_ciphertext" text NOT NULL,
	"masks" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "credentials_org_name" ON "credentials" USING btree ("organization_id","name");--> statement-breakpoint
CREATE INDEX "credentials_org_created" ON "credentials" USING btree ("organization_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
ALTER TABLE credentials ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE credentials FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON credentials USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
