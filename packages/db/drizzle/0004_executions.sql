CREATE TABLE "execution_steps" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"execution_id" uuid NOT NULL,
	"node_id" text NOT NULL,
	"node_type" text NOT NULL,
	"iteration" integer DEFAULT -1 NOT NULL,
	"position" integer NOT NULL,
	"status" text NOT NULL,
	"attempt" integer DEFAULT 1 NOT NULL,
	"output" jsonb,
	"resolved_config" jsonb,
	"error" jsonb,
	"started_at" timestamp (3) with time zone,
	"completed_at" timestamp (3) with time zone,
	"duration_ms" integer
);
--> statement-breakpoint
CREATE TABLE "executions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"workflow_id" uuid NOT NULL,
	"workflow_name" text NOT NULL,
	"workflow_version" integer NOT NULL,
	"graph" jsonb NOT NULL,
	"status" text NOT NULL,
	"trigger" text NOT NULL,
	"event" text,
	"trigger_payload" jsonb NOT NULL,
	"attempt" integer DEFAULT 1 NOT NULL,
	"error" jsonb,
	"parent_execution_id" uuid,
	"started_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp (3) with time zone,
	"duration_ms" integer,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "execution_steps" ADD CONSTRAINT "execution_steps_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "execution_steps" ADD CONSTRAINT "execution_steps_execution_id_executions_id_fk" FOREIGN KEY ("execution_id") REFERENCES "public"."executions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "executions" ADD CONSTRAINT "executions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "execution_steps_node" ON "execution_steps" USING btree ("execution_id","node_id","iteration");--> statement-breakpoint
CREATE INDEX "execution_steps_org" ON "execution_steps" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "executions_org_started" ON "executions" USING btree ("organization_id","started_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "executions_org_workflow" ON "executions" USING btree ("organization_id","workflow_id","started_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "executions_org_status" ON "executions" USING btree ("organization_id","status");