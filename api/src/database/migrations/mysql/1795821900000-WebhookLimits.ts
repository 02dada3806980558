import type { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 24, webhooks that give up cleanly.
export class WebhookLimits1795821900000 implements MigrationInterface {
  name = 'WebhookLimits1795821900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE `webhooks` ADD `consecutive_failures` int NOT NULL DEFAULT 0');
    await queryRunner.query('ALTER TABLE `webhooks` ADD `failing_since` datetime(3) NULL');
    await queryRunner.query('ALTER TABLE `webhooks` ADD `disabled_reason` varchar(500) NULL');
    await queryRunner.query('ALTER TABLE `webhooks` ADD `disabled_at` datetime(3) NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE `webhooks` DROP COLUMN `disabled_at`');
    await queryRunner.query('ALTER TABLE `webhooks` DROP COLUMN `disabled_reason`');
    await queryRunner.query('ALTER TABLE `webhooks` DROP COLUMN `failing_since`');
    await queryRunner.query('ALTER TABLE `webhooks` DROP COLUMN `consecutive_failures`');
  }
}
