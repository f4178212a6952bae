CREATE TABLE "chat_conversations" (
	"organization_id" uuid NOT NULL,
	"phone_hash" text NOT NULL,
	"conversation_id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"last_inbound_at" timestamp (3) with time zone NOT NULL,
	"window_expires_at" timestamp (3) with time zone NOT NULL,
	"last_provider_message_id" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_conversations_organization_id_phone_hash_pk" PRIMARY KEY("organization_id","phone_hash")
);
--> statement-breakpoint
ALTER TABLE "chat_conversations" ADD CONSTRAINT "chat_conversations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE chat_conversations ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE chat_conversations FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON chat_conversations USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
-- Inbound chat posts carry no API key: the sending number's id (public config) names the organization.
CREATE FUNCTION weft_find_chat_module(p_phone_number_id text)
RETURNS TABLE (organization_id uuid, secret_ciphertext text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT organization_id, secret_ciphertext FROM organization_modules
  WHERE module = 'chat' AND public_config->>'provider' = 'cloud' AND public_config->>'phone_number_id' = p_phone_number_id
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_find_chat_module(text) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_find_chat_module(text) TO weft_app;
--> statement-breakpoint
-- The GET handshake carries only the verify token: every cloud chat module is a candidate.
CREATE FUNCTION weft_list_cloud_chat_modules()
RETURNS TABLE (organization_id uuid, secret_ciphertext text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT organization_id, secret_ciphertext FROM organization_modules
  WHERE module = 'chat' AND public_config->>'provider' = 'cloud'
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_list_cloud_chat_modules() FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_list_cloud_chat_modules() TO weft_app;
--> statement-breakpoint
-- Inbound posts are routed by this id: one organization per sending number, or one could read another's messages.
CREATE UNIQUE INDEX organization_modules_cloud_phone ON organization_modules ((public_config->>'phone_number_id'))
  WHERE module = 'chat' AND public_config->>'provider' = 'cloud';
