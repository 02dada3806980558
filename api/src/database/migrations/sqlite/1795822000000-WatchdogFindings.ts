import type { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 24: the watchdog's findings.
export class WatchdogFindings1795822000000 implements MigrationInterface {
  name = 'WatchdogFindings1795822000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE "watchdog_findings" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "org_id" varchar(64) NOT NULL, "ref_id" bigint NOT NULL, "party_order" integer, "kind" varchar(24) NOT NULL, "state" varchar(12) NOT NULL, "detail" varchar(500) NOT NULL, "retryable" boolean NOT NULL DEFAULT (0), "retries" integer NOT NULL DEFAULT (0), "first_seen_at" datetime(3) NOT NULL, "last_seen_at" datetime(3) NOT NULL, "next_retry_at" datetime(3), "reported_at" datetime(3), "resolved_at" datetime(3), "open_key" varchar(80))',
    );
    await queryRunner.query('CREATE UNIQUE INDEX "uq_watchdog_open_key" ON "watchdog_findings" ("open_key") ');
    await queryRunner.query(
      'CREATE INDEX "idx_watchdog_org_state" ON "watchdog_findings" ("org_id", "state", "last_seen_at") ',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "idx_watchdog_org_state"');
    await queryRunner.query('DROP INDEX "uq_watchdog_open_key"');
    await queryRunner.query('DROP TABLE "watchdog_findings"');
  }
}
