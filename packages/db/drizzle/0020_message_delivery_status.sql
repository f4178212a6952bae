ALTER TABLE "message_outbox" ADD COLUMN "delivery_status" text;--> statement-breakpoint
ALTER TABLE "message_outbox" ADD COLUMN "delivery_error" text;--> statement-breakpoint
CREATE INDEX "message_outbox_provider_id" ON "message_outbox" USING btree ("organization_id",("result"->>'message_id'));