-- The workbench (DESIGN §15, issue 21): test runs and replays are executions with mode = 'test'; a
-- replay names its original; a step that did not run says where its output came from. The
-- tables keep their row-level security (organization_id policies of 0005/0008): no new table.
ALTER TABLE "execution_steps" ADD COLUMN "source" text;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "mode" text DEFAULT 'production' NOT NULL;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "replay_of" uuid;--> statement-breakpoint
ALTER TABLE "executions" ADD COLUMN "test_options" jsonb;--> statement-breakpoint
CREATE INDEX "executions_org_test_started" ON "executions" USING btree ("organization_id","started_at" DESC NULLS FIRST,"id" DESC NULLS FIRST) WHERE "executions"."mode" = 'test';