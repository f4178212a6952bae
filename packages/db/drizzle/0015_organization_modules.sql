CREATE TABLE "organization_modules" (
	"organization_id" uuid NOT NULL,
	"module" text NOT NULL,
	"public_config" jsonb NOT NULL,
	"secret_ciphertext" text NOT NULL,
	"masks" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "organization_modules_organization_id_module_pk" PRIMARY KEY("organization_id","module")
);
--> statement-breakpoint
ALTER TABLE "organization_modules" ADD CONSTRAINT "organization_modules_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE organization_modules ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE organization_modules FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON organization_modules USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
