CREATE TABLE "chat_inbound_messages" (
	"organization_id" uuid NOT NULL,
	"provider_message_id" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_inbound_messages_organization_id_provider_message_id_pk" PRIMARY KEY("organization_id","provider_message_id")
);
--> statement-breakpoint
ALTER TABLE "chat_inbound_messages" ADD CONSTRAINT "chat_inbound_messages_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE chat_inbound_messages ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE chat_inbound_messages FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON chat_inbound_messages USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
