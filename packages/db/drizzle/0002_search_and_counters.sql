-- Substring search over workflow names and descriptions (ILIKE '%…%') uses trigram indexes instead of
-- scanning every workflow of the organization.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE INDEX workflows_name_trgm ON workflows USING gin (name gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX workflows_description_trgm ON workflows USING gin (description gin_trgm_ops);
--> statement-breakpoint
-- Rate-limit counters are worth nothing after a crash (a window lasts a minute), so they skip the
-- write-ahead log: counting a request then costs no WAL flush on the hot path of every API call.
ALTER TABLE rate_limit_counters SET UNLOGGED;
