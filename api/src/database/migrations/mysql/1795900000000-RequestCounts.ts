import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A row the lists show: not deleted, and listed (a draft is listed once saved; see RequestEntity.listedAt). */
const LISTED = (row: string) => `${row}.deleted_at IS NULL AND ${row}.listed_at IS NOT NULL`;
const count = (row: string, delta: number) =>
  `INSERT INTO request_counts (org_id, is_draft, n) VALUES (${row}.org_id, ${row}.is_draft, ${delta})
     ON DUPLICATE KEY UPDATE n = n + (${delta});`;
const nameIn = (row: string) =>
  `INSERT INTO request_names (org_id, is_draft, ref_id, name) VALUES (${row}.org_id, ${row}.is_draft, ${row}.ref_id, ${row}.filename);`;
const nameOut = (row: string) =>
  `DELETE FROM request_names WHERE org_id = ${row}.org_id AND is_draft = ${row}.is_draft AND ref_id = ${row}.ref_id;`;

// Issue 23: MySQL/MariaDB counted every listed request of the organisation for each page's total (COUNT(*) over
// ~90,000 index entries at 100,000 requests) and every match of a file-name search on the list index's wide entries.
// The same tables as SQLite's (request-counts.ts), kept exact by triggers, so that any write, whatever code or SQL
// makes it, moves them: request_counts (listed requests per organisation and kind) and request_names (one narrow row
// per listed request: its key and file name, in the column's collation so a search matches as it does on `requests`).
// Unlike SQLite, a MySQL migration that alters `requests` keeps its triggers, so they live here. An update touches
// them only when the row enters or leaves a list or is renamed (status and progress updates lock nothing more).
export class RequestCounts1795900000000 implements MigrationInterface {
  name = 'RequestCounts1795900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE \`request_counts\` (
      \`org_id\` varchar(64) NOT NULL,
      \`is_draft\` tinyint NOT NULL,
      \`n\` int NOT NULL,
      PRIMARY KEY (\`org_id\`, \`is_draft\`)) ENGINE=InnoDB`);
    // The name compares as requests.filename does: its collation, whatever the database's default is now.
    const [{ collation }] = (await queryRunner.query(
      "SELECT COLLATION_NAME AS collation FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'requests' AND column_name = 'filename'",
    )) as { collation: string }[];
    if (!/^\w+$/.test(collation)) throw new Error(`requests.filename has an unexpected collation: ${collation}`);
    await queryRunner.query(`CREATE TABLE \`request_names\` (
      \`org_id\` varchar(64) NOT NULL,
      \`is_draft\` tinyint NOT NULL,
      \`ref_id\` bigint NOT NULL,
      \`name\` varchar(255) COLLATE ${collation} NOT NULL,
      PRIMARY KEY (\`org_id\`, \`is_draft\`, \`ref_id\`)) ENGINE=InnoDB`);
    await queryRunner.query(`CREATE TRIGGER request_counts_listed_insert AFTER INSERT ON requests FOR EACH ROW
      BEGIN IF ${LISTED('NEW')} THEN ${count('NEW', 1)} ${nameIn('NEW')} END IF; END`);
    await queryRunner.query(`CREATE TRIGGER request_counts_listed_delete AFTER DELETE ON requests FOR EACH ROW
      BEGIN IF ${LISTED('OLD')} THEN ${count('OLD', -1)} ${nameOut('OLD')} END IF; END`);
    // BINARY: a rename that only changes case is still a rename.
    await queryRunner.query(`CREATE TRIGGER request_counts_listed_update AFTER UPDATE ON requests FOR EACH ROW
      BEGIN
        IF NOT (OLD.ref_id <=> NEW.ref_id AND OLD.org_id <=> NEW.org_id AND OLD.is_draft <=> NEW.is_draft
                AND OLD.deleted_at <=> NEW.deleted_at AND (OLD.listed_at IS NULL) <=> (NEW.listed_at IS NULL)
                AND BINARY OLD.filename <=> BINARY NEW.filename) THEN
          IF ${LISTED('OLD')} THEN ${count('OLD', -1)} ${nameOut('OLD')} END IF;
          IF ${LISTED('NEW')} THEN ${count('NEW', 1)} ${nameIn('NEW')} END IF;
        END IF;
      END`);
    // Existing rows, counted after the triggers exist (migrations run before the server serves, so nothing writes
    // in between).
    await queryRunner.query(`INSERT INTO request_counts (org_id, is_draft, n)
      SELECT org_id, is_draft, COUNT(*) FROM requests r WHERE ${LISTED('r')} GROUP BY org_id, is_draft`);
    await queryRunner.query(`INSERT INTO request_names (org_id, is_draft, ref_id, name)
      SELECT org_id, is_draft, ref_id, filename FROM requests r WHERE ${LISTED('r')}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER request_counts_listed_update');
    await queryRunner.query('DROP TRIGGER request_counts_listed_delete');
    await queryRunner.query('DROP TRIGGER request_counts_listed_insert');
    await queryRunner.query('DROP TABLE `request_names`');
    await queryRunner.query('DROP TABLE `request_counts`');
  }
}
