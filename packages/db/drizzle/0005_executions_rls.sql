ALTER TABLE executions ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE executions FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON executions USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
ALTER TABLE execution_steps ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE execution_steps FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON execution_steps USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
