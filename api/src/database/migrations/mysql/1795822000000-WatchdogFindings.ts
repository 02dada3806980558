import type { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 24: the watchdog's findings.
export class WatchdogFindings1795822000000 implements MigrationInterface {
  name = 'WatchdogFindings1795822000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE TABLE `watchdog_findings` (`id` int NOT NULL AUTO_INCREMENT, `org_id` varchar(64) NOT NULL, `ref_id` bigint NOT NULL, `party_order` int NULL, `kind` varchar(24) NOT NULL, `state` varchar(12) NOT NULL, `detail` varchar(500) NOT NULL, `retryable` tinyint NOT NULL DEFAULT 0, `retries` int NOT NULL DEFAULT 0, `first_seen_at` datetime(3) NOT NULL, `last_seen_at` datetime(3) NOT NULL, `next_retry_at` datetime(3) NULL, `reported_at` datetime(3) NULL, `resolved_at` datetime(3) NULL, `open_key` varchar(80) NULL, INDEX `idx_watchdog_org_state` (`org_id`, `state`, `last_seen_at`), UNIQUE INDEX `uq_watchdog_open_key` (`open_key`), PRIMARY KEY (`id`)) ENGINE=InnoDB',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX `uq_watchdog_open_key` ON `watchdog_findings`');
    await queryRunner.query('DROP INDEX `idx_watchdog_org_state` ON `watchdog_findings`');
    await queryRunner.query('DROP TABLE `watchdog_findings`');
  }
}
