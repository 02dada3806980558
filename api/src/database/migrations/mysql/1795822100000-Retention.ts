import type { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 24: retention (the organisation's periods; when a request ended and when its files were deleted).
export class Retention1795822100000 implements MigrationInterface {
  name = 'Retention1795822100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE `organisations` ADD `retention_days` int NULL');
    await queryRunner.query('ALTER TABLE `organisations` ADD `media_retention_days` int NULL');
    await queryRunner.query('ALTER TABLE `requests` ADD `ended_at` datetime(3) NULL');
    await queryRunner.query('ALTER TABLE `requests` ADD `files_deleted_at` datetime(3) NULL');
    await queryRunner.query('ALTER TABLE `requests` ADD `media_deleted_at` datetime(3) NULL');
    // Requests that ended before: from their completion, or their last change (the end).
    await queryRunner.query(
      "UPDATE `requests` SET `ended_at` = COALESCE(`completed_at`, `updated_at`) WHERE `status` IN ('completed', 'rejected', 'expired', 'cancelled')",
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE `requests` DROP COLUMN `media_deleted_at`');
    await queryRunner.query('ALTER TABLE `requests` DROP COLUMN `files_deleted_at`');
    await queryRunner.query('ALTER TABLE `requests` DROP COLUMN `ended_at`');
    await queryRunner.query('ALTER TABLE `organisations` DROP COLUMN `media_retention_days`');
    await queryRunner.query('ALTER TABLE `organisations` DROP COLUMN `retention_days`');
  }
}
