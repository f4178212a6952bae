-- Gateway inbound posts are routed by (AccountSid, To): one organization per sending number.
CREATE UNIQUE INDEX organization_modules_gateway_number ON organization_modules
  ((public_config->>'account_sid'), (public_config->>'from_number'))
  WHERE module = 'chat' AND public_config->>'provider' = 'gateway';
--> statement-breakpoint
CREATE FUNCTION weft_find_gateway_chat_module(p_account_sid text, p_to text)
RETURNS TABLE (organization_id uuid, secret_ciphertext text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT organization_id, secret_ciphertext FROM organization_modules
  WHERE module = 'chat' AND public_config->>'provider' = 'gateway'
    AND public_config->>'account_sid' = p_account_sid AND public_config->>'from_number' = p_to
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_find_gateway_chat_module(text, text) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_find_gateway_chat_module(text, text) TO weft_app;
