import type { MigrationInterface, QueryRunner } from 'typeorm';

// Issue 24, webhooks that give up cleanly. Written by hand as ADD COLUMN (what the generator would write as a rebuild
// of the table), so that it merges with other branches' migrations of the same table.
export class WebhookLimits1795821900000 implements MigrationInterface {
  name = 'WebhookLimits1795821900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "webhooks" ADD COLUMN "consecutive_failures" integer NOT NULL DEFAULT (0)');
    await queryRunner.query('ALTER TABLE "webhooks" ADD COLUMN "failing_since" datetime(3)');
    await queryRunner.query('ALTER TABLE "webhooks" ADD COLUMN "disabled_reason" varchar(500)');
    await queryRunner.query('ALTER TABLE "webhooks" ADD COLUMN "disabled_at" datetime(3)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "webhooks" DROP COLUMN "disabled_at"');
    await queryRunner.query('ALTER TABLE "webhooks" DROP COLUMN "disabled_reason"');
    await queryRunner.query('ALTER TABLE "webhooks" DROP COLUMN "failing_since"');
    await queryRunner.query('ALTER TABLE "webhooks" DROP COLUMN "consecutive_failures"');
  }
}
