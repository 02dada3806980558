/**
 * Requests seeded straight into the SQLite file of a stopped built server (lists.mjs, http.mjs): `count` requests of
 * the organisation, 3 parties each (2 e-Signature signers and an observer), one a minute from 2025-01-01, every tenth a
 * draft (saved, so listed), a third of the others completed. Answers their Ref IDs, in order.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { repoRoot } from './server.mjs';

const require = createRequire(path.join(repoRoot, 'api', 'package.json'));
const Database = require('better-sqlite3');
const mysql = require('mysql2/promise');

const WORDS = [
  'Lease',
  'Agreement',
  'NDA',
  'Offer',
  'Letter',
  'Invoice',
  'Contract',
  'Renewal',
  'Policy',
  'Mandate',
  'Loan',
  'Sale',
  'Deed',
];

const REQUEST_INSERT = `INSERT INTO requests (ref_id, org_id, filename, file_key, file_size, total_pages, geometry,
  check_order, otp_required, reminder, reminder_duration, status, is_draft, signers_total, signers_done, template_id,
  created_by, submitted_at, expires_at, completed_at, signed_file_key, deleted_at, listed_at, created_at, updated_at)
  VALUES `;
const REQUEST_VALUES =
  "(?, ?, ?, ?, 75959, 2, ?, 0, 1, 0, NULL, ?, ?, 2, ?, NULL, 'bench', ?, NULL, NULL, NULL, NULL, ?, ?, ?)";
const PARTY_INSERT = `INSERT INTO parties (id, ref_id, org_id, party_order, name, email, phone_number, observer,
  signature_type, status, token_hash, token_nonce, page_no, apply_all, rectangle, drag_coord, boxes, invited_at,
  reminded_at, signed_at, created_at, updated_at)
  VALUES `;
const PARTY_VALUES =
  "(?, ?, ?, ?, ?, ?, '+919876543210', ?, ?, ?, NULL, NULL, '[1]', 0, '0,790,150,840', NULL, ?, NULL, NULL, NULL, ?, ?)";

/** Request i's row and its 3 parties' rows (the parameters of REQUEST_VALUES and PARTY_VALUES). */
function rowsOf(orgId, i) {
  const geometry = JSON.stringify([
    { pages: '1-2', mediaBox: [0, 0, 612, 792], cropBox: [0, 0, 612, 792], rotation: 0 },
  ]);
  const boxes = JSON.stringify([{ pages: '1', x: 0, y: 0, width: 141.43, height: 47.14 }]);
  const t0 = Date.parse('2025-01-01T00:00:00Z');
  const refId = 1_000_000_000 + i * 7919 + (i % 7);
  const filename = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${i}.pdf`;
  const at = new Date(t0 + i * 60_000).toISOString().replace('T', ' ').replace('Z', '');
  const draft = i % 10 === 0 ? 1 : 0;
  const status = draft ? 'draft' : i % 3 === 0 ? 'completed' : 'in-progress';
  const request = [
    refId,
    orgId,
    filename,
    'f'.repeat(64),
    geometry,
    status,
    draft,
    status === 'completed' ? 2 : 0,
    draft ? null : at,
    // Listed (a saved draft, or a request sent): the console's lists show it.
    at,
    at,
    at,
  ];
  const parties = [1, 2, 3].map((order) => {
    const observer = order === 3 ? 1 : 0;
    return [
      randomUUID(),
      refId,
      orgId,
      order,
      `Party ${order} of ${i}`,
      `p${order}.${i}@example.in`,
      observer,
      observer ? null : 'e-Signature',
      draft ? 'saved' : observer ? 'waiting' : status === 'completed' ? 'completed' : 'in-progress',
      boxes,
      at,
      at,
    ];
  });
  return { refId, request, parties };
}

export function seedRequests(file, orgId, count) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  const insertRequest = db.prepare(REQUEST_INSERT + REQUEST_VALUES);
  const insertParty = db.prepare(PARTY_INSERT + PARTY_VALUES);
  const refIds = [];
  const run = db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const { refId, request, parties } = rowsOf(orgId, i);
      refIds.push(refId);
      insertRequest.run(...request);
      for (const party of parties) insertParty.run(...party);
    }
  });
  run();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.exec('ANALYZE');
  db.close();
  return refIds;
}

/** The same rows into a MySQL/MariaDB database (mysql2 URL) whose schema the built server has made. */
export async function seedRequestsMysql(url, orgId, count) {
  const connection = await mysql.createConnection(url);
  const refIds = [];
  const BATCH = 500;
  try {
    for (let start = 0; start < count; start += BATCH) {
      const requests = [];
      const parties = [];
      for (let i = start; i < Math.min(count, start + BATCH); i++) {
        const rows = rowsOf(orgId, i);
        refIds.push(rows.refId);
        requests.push(rows.request);
        parties.push(...rows.parties);
      }
      await connection.query(REQUEST_INSERT + requests.map(() => REQUEST_VALUES).join(', '), requests.flat());
      await connection.query(PARTY_INSERT + parties.map(() => PARTY_VALUES).join(', '), parties.flat());
    }
    await connection.query('ANALYZE TABLE requests, parties');
  } finally {
    await connection.end();
  }
  return refIds;
}
