-- A production retry of a partial execution (issue 21 §1.4) is a new execution naming the one it
-- retries: its completed steps are reused, its failed steps and what follows them run again. No new
-- table: the executions policies of 0005/0008 cover the column.
ALTER TABLE "executions" ADD COLUMN "retry_of" uuid;