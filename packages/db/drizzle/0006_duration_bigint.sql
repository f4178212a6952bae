ALTER TABLE "execution_steps" ALTER COLUMN "duration_ms" SET DATA TYPE bigint;--> statement-breakpoint
ALTER TABLE "executions" ALTER COLUMN "duration_ms" SET DATA TYPE bigint;