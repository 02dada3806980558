import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A row the lists show: not deleted, and listed (a draft is listed once saved; see RequestEntity.listedAt). */
const LISTED = (row: string) => `${row}.deleted_at IS NULL AND ${row}.listed_at IS NOT NULL`;
const add = (row: string, delta: number) =>
  `INSERT INTO request_counts (org_id, is_draft, n) VALUES (${row}.org_id, ${row}.is_draft, ${delta})
     ON DUPLICATE KEY UPDATE n = n + (${delta});`;

// Issue 23: MySQL/MariaDB counted every listed request of the organisation for each page's total (COUNT(*) over
// ~90,000 index entries, 0.1-1 s at 100,000 requests). The same counts as SQLite's (request-counts.ts), kept exact by
// triggers, so that any write, whatever code or SQL makes it, moves them. Unlike SQLite, a MySQL migration that alters
// `requests` keeps its triggers, so they live here. An update touches the counts only when the row enters or leaves a
// list (status and progress updates do not lock the organisation's counter row).
export class RequestCounts1795900000000 implements MigrationInterface {
  name = 'RequestCounts1795900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE \`request_counts\` (
      \`org_id\` varchar(64) NOT NULL,
      \`is_draft\` tinyint NOT NULL,
      \`n\` int NOT NULL,
      PRIMARY KEY (\`org_id\`, \`is_draft\`)) ENGINE=InnoDB`);
    await queryRunner.query(`CREATE TRIGGER request_counts_listed_insert AFTER INSERT ON requests FOR EACH ROW
      BEGIN IF ${LISTED('NEW')} THEN ${add('NEW', 1)} END IF; END`);
    await queryRunner.query(`CREATE TRIGGER request_counts_listed_delete AFTER DELETE ON requests FOR EACH ROW
      BEGIN IF ${LISTED('OLD')} THEN ${add('OLD', -1)} END IF; END`);
    await queryRunner.query(`CREATE TRIGGER request_counts_listed_update AFTER UPDATE ON requests FOR EACH ROW
      BEGIN
        IF NOT (OLD.org_id <=> NEW.org_id AND OLD.is_draft <=> NEW.is_draft AND OLD.deleted_at <=> NEW.deleted_at
                AND (OLD.listed_at IS NULL) <=> (NEW.listed_at IS NULL)) THEN
          IF ${LISTED('OLD')} THEN ${add('OLD', -1)} END IF;
          IF ${LISTED('NEW')} THEN ${add('NEW', 1)} END IF;
        END IF;
      END`);
    // Existing rows, counted after the triggers exist (migrations run before the server serves, so nothing writes
    // in between).
    await queryRunner.query(`INSERT INTO request_counts (org_id, is_draft, n)
      SELECT org_id, is_draft, COUNT(*) FROM requests r WHERE ${LISTED('r')} GROUP BY org_id, is_draft`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER request_counts_listed_update');
    await queryRunner.query('DROP TRIGGER request_counts_listed_delete');
    await queryRunner.query('DROP TRIGGER request_counts_listed_insert');
    await queryRunner.query('DROP TABLE `request_counts`');
  }
}
