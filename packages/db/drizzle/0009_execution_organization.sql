-- Activities know their execution (from the Temporal workflow id) but not its organization; storing a
-- large node output by reference needs the organization for the tenancy transaction.
CREATE FUNCTION weft_execution_organization(p_execution_id uuid)
RETURNS uuid
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT organization_id FROM executions WHERE id = p_execution_id
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_execution_organization(uuid) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_execution_organization(uuid) TO weft_app;
