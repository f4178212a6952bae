CREATE TABLE "invitations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by" uuid,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"accepted_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "memberships" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "password_reset_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"used_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "web_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"user_id" uuid NOT NULL,
	"current_organization_id" uuid,
	"awaiting_second_factor" boolean DEFAULT false NOT NULL,
	"ip_address" text,
	"user_agent" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" DROP CONSTRAINT "users_organization_id_organizations_id_fk";
--> statement-breakpoint
ALTER TABLE "users" ALTER COLUMN "organization_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ALTER COLUMN "role" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "users" ALTER COLUMN "role" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_secret_ciphertext" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_enabled_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "totp_last_step" bigint;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "recovery_code_hashes" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "password_reset_tokens" ADD CONSTRAINT "password_reset_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "web_sessions" ADD CONSTRAINT "web_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "web_sessions" ADD CONSTRAINT "web_sessions_current_organization_id_organizations_id_fk" FOREIGN KEY ("current_organization_id") REFERENCES "public"."organizations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_token_hash" ON "invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "memberships_org_user" ON "memberships" USING btree ("organization_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "web_sessions_token_hash" ON "web_sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "web_sessions_user" ON "web_sessions" USING btree ("user_id");--> statement-breakpoint
-- Users leave their one organization: memberships say who belongs where, with which role
-- (the old `member` becomes `editor`). The users table is no longer a tenant table.
INSERT INTO memberships (id, organization_id, user_id, role, created_at)
SELECT gen_random_uuid(), organization_id, id, CASE role WHEN 'admin' THEN 'admin' ELSE 'editor' END, created_at
FROM users WHERE organization_id IS NOT NULL;
--> statement-breakpoint
DROP POLICY tenant_isolation ON users;
--> statement-breakpoint
ALTER TABLE users NO FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE users DISABLE ROW LEVEL SECURITY;
--> statement-breakpoint
DROP FUNCTION weft_find_user_by_email(text);
--> statement-breakpoint
ALTER TABLE memberships ADD CONSTRAINT memberships_role_check CHECK (role IN ('admin', 'editor', 'viewer'));
--> statement-breakpoint
ALTER TABLE invitations ADD CONSTRAINT invitations_role_check CHECK (role IN ('admin', 'editor', 'viewer'));
--> statement-breakpoint
ALTER TABLE memberships ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE memberships FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON memberships USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
ALTER TABLE invitations ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
ALTER TABLE invitations FORCE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON invitations USING (organization_id = weft_current_org()) WITH CHECK (organization_id = weft_current_org());
--> statement-breakpoint
-- The organizations a user belongs to (the switcher; sign-in picks the first). Runs as its owner:
-- it must look across organizations, and reveals only the caller's own memberships.
CREATE FUNCTION weft_user_memberships(p_user_id uuid)
RETURNS TABLE (organization_id uuid, organization_name text, role text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT m.organization_id, o.name, m.role FROM memberships m JOIN organizations o ON o.id = m.organization_id
  WHERE m.user_id = p_user_id ORDER BY m.created_at, m.organization_id
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_user_memberships(uuid) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_user_memberships(uuid) TO weft_app;
--> statement-breakpoint
-- One round trip per browser request: the session by its token hash (not past its idle or absolute
-- limit), its user, and the user's role in the session's organization (or the first one). Refreshes
-- last_seen_at at most once a minute.
CREATE FUNCTION weft_authenticate_session(p_token_hash text, p_idle_minutes integer)
RETURNS TABLE (session_id uuid, user_id uuid, email text, name text, organization_id uuid, role text,
               awaiting_second_factor boolean, two_factor_enabled boolean)
LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
  WITH s AS (
    SELECT * FROM web_sessions
    WHERE token_hash = p_token_hash AND expires_at > now()
      AND last_seen_at > now() - make_interval(mins => p_idle_minutes)
  ),
  touched AS (
    UPDATE web_sessions SET last_seen_at = now()
    WHERE id = (SELECT id FROM s) AND last_seen_at < now() - interval '1 minute'
  ),
  m AS (
    SELECT m.organization_id, m.role FROM memberships m, s
    WHERE m.user_id = s.user_id
    ORDER BY (m.organization_id = s.current_organization_id) DESC NULLS LAST, m.created_at
    LIMIT 1
  )
  SELECT s.id, u.id, u.email, u.name, m.organization_id, m.role, s.awaiting_second_factor,
         u.totp_enabled_at IS NOT NULL
  FROM s JOIN users u ON u.id = s.user_id LEFT JOIN m ON true
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_authenticate_session(text, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_authenticate_session(text, integer) TO weft_app;
--> statement-breakpoint
-- An invitation is opened by its link before its organization is known.
CREATE FUNCTION weft_find_invitation(p_token_hash text)
RETURNS TABLE (invitation_id uuid, organization_id uuid, organization_name text, email text, role text,
               expires_at timestamptz, accepted_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
  SELECT i.id, i.organization_id, o.name, i.email, i.role, i.expires_at, i.accepted_at
  FROM invitations i JOIN organizations o ON o.id = i.organization_id WHERE i.token_hash = p_token_hash
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_find_invitation(text) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_find_invitation(text) TO weft_app;
--> statement-breakpoint
-- Counts one request in a one-minute window (sign-in forms, per client IP), shared by every replica.
CREATE FUNCTION weft_count_request(p_bucket text)
RETURNS TABLE (count integer, window_start timestamptz)
LANGUAGE sql SECURITY DEFINER SET search_path = public AS $$
  INSERT INTO rate_limit_counters AS c (bucket, window_start, count)
  VALUES (p_bucket, date_trunc('minute', now()), 1)
  ON CONFLICT (bucket) DO UPDATE SET
    count = CASE WHEN c.window_start = EXCLUDED.window_start THEN c.count + 1 ELSE 1 END,
    window_start = EXCLUDED.window_start
  RETURNING c.count, c.window_start
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION weft_count_request(text) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION weft_count_request(text) TO weft_app;
