ALTER TABLE webhooks ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE webhooks FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON webhooks USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
ALTER TABLE webhook_deliveries ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE webhook_deliveries FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON webhook_deliveries USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
ALTER TABLE poll_states ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE poll_states FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON poll_states USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
ALTER TABLE poll_seen_items ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE poll_seen_items FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON poll_seen_items USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
ALTER TABLE organization_settings ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE organization_settings FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON organization_settings USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
ALTER TABLE event_names ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE event_names FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON event_names USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
ALTER TABLE stored_outputs ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE stored_outputs FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON stored_outputs USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
-- Inbound webhooks arrive without an API key: the token names the workflow and its organization.
CREATE FUNCTION weft_find_hook(p_token text)
RETURNS TABLE (workflow_id uuid, organization_id uuid, status text, trigger_type text, trigger_config jsonb)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT id, organization_id, status, trigger_type, trigger_config FROM workflows WHERE webhook_token = p_token
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_find_hook(text) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_find_hook(text) TO weft_app;
--> statement-breakpoint
-- The schedule reconciler compares Temporal Schedules with every organization's scheduled and polling workflows.
CREATE FUNCTION weft_list_timed_workflows()
RETURNS TABLE (workflow_id uuid, organization_id uuid, status text, trigger_type text, trigger_config jsonb)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT id, organization_id, status, trigger_type, trigger_config FROM workflows
  WHERE trigger_type IN ('schedule', 'polling')
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_list_timed_workflows() FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_list_timed_workflows() TO weft_app;
--> statement-breakpoint
-- Outbox sweeper: deliveries recorded but never picked up (the process died between commit and start).
CREATE FUNCTION weft_list_unstarted_deliveries(p_older_than interval, p_limit integer)
RETURNS TABLE (delivery_id uuid, organization_id uuid)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT id, organization_id FROM webhook_deliveries
  WHERE status = 'pending' AND attempt_count = 0 AND created_at < now() - p_older_than
  ORDER BY created_at LIMIT p_limit
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_list_unstarted_deliveries(interval, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_list_unstarted_deliveries(interval, integer) TO weft_app;
