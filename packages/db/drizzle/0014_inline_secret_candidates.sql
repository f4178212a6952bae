-- Workflows that may still hold a secret in clear (saved before credentials existed): a hook secret,
-- or plain headers on a poll or a node. Ids only, across tenants, for the one-off move into credentials.
CREATE FUNCTION weft_list_inline_secret_candidates()
RETURNS TABLE (workflow_id uuid, organization_id uuid)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT id, organization_id FROM workflows
  WHERE trigger_config ? 'secret'
     OR trigger_config ? 'headers'
     OR jsonb_path_exists(nodes, '$[*].config.headers')
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_list_inline_secret_candidates() FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_list_inline_secret_candidates() TO weft_app;
