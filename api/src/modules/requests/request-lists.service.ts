import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  REQUEST_LIST_SORT_FIELDS,
  type DraftListItem,
  type PartyView,
  type RequestListItem,
  type RequestListQueryParams,
} from '@esign/contract';
import { DataSource } from 'typeorm';
import { AppError } from '../../common/app-error';
import { RowReader } from '../../database/row-reader';
import { containsPattern, LIKE_ESCAPE } from '../../common/rest-query';
import { LinksService } from '../secrets/links.service';
import { NAMES_MATCHING, RequestCounts } from './request-counts';
import { fieldStateOf } from './fields';
import { PartyEntity } from './party.entity';
import { RequestEntity } from './request.entity';
import { RequestRepository } from './request-repository';

export interface ListQuery {
  drafts: boolean;
  /** Digits match a Ref ID exactly; other text matches file names, case-insensitively. */
  q?: string;
  offset: number;
  limit: number;
  order: 'ASC' | 'DESC';
  sortBy: 'listedAt' | 'filename' | 'refId';
}

// The row's timestamp is the time it was listed (a draft's last SAVE, a request's submission): newest first holds for
// a draft submitted today although it was uploaded last week.
const SORT_COLUMN: Record<(typeof REQUEST_LIST_SORT_FIELDS)[number], ListQuery['sortBy']> = {
  timestamp: 'listedAt',
  createdAt: 'listedAt',
  id: 'listedAt',
  refId: 'refId',
  filename: 'filename',
};

/**
 * What a list row shows (item, draftItem): a page of rows reads these and not the rest (a document's page geometry is
 * a JSON array of one entry per page).
 */
const LIST_COLUMNS = [
  'refId',
  'orgId',
  'filename',
  'status',
  'isDraft',
  'signersTotal',
  'signersDone',
  'submittedAt',
  'completedAt',
  'signedFileKey',
  'sealError',
  'deletedAt',
  'listedAt',
  'createdAt',
  'filesDeletedAt',
] as const satisfies readonly (keyof RequestEntity)[];

const STATUS_TEXT: Record<string, string> = {
  draft: 'Draft',
  completed: 'Completed',
  rejected: 'Rejected',
  expired: 'Expired',
  cancelled: 'Cancelled',
};

/**
 * What the page and search reads name before WHERE on MySQL/MariaDB: their one index. Its optimizer weighs statistics
 * sampled from the table, and on a small table it may scan and sort instead (seen in CI); the index answers both in
 * its own order at any size. SQLite's planner picks it by itself (pinned in requests.test.ts).
 */
export const MYSQL_LIST_INDEX = 'FORCE INDEX (idx_requests_listed)';

/** The row's timestamp: when it was listed (see RequestEntity.listedAt). */
const listedTime = (r: RequestEntity): string => (r.listedAt ?? r.createdAt).toISOString();

/** In progress: how far, and whether applying a signature is failing (the seal job retries; an operator can reseal). */
function statusText(r: RequestEntity): string {
  const done = `${r.signersDone} of ${r.signersTotal} signed`;
  return r.sealError ? `${done} · signing failed, retrying` : done;
}

/**
 * The console's lists, paginated and searched in the database on one index (orgId, isDraft, deletedAt, listedAt,
 * filename), and the /v1 list calls kept for compatibility. A draft is listed once saved (listedAt set): the one
 * PROCEED uploads before the placement is not, so leaving the placement never leaves a stray draft in the list.
 */
@Injectable()
export class RequestListsService {
  private readonly listRows: RowReader<RequestEntity>;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly requests: RequestRepository,
    private readonly links: LinksService,
    private readonly counts: RequestCounts,
  ) {
    this.listRows = new RowReader(db, RequestEntity, [], { select: LIST_COLUMNS });
  }

  async list(orgId: string, query: ListQuery): Promise<{ total: number; rows: RequestEntity[] }> {
    // Raw SQL on idx_requests_listed (the query builder cost more CPU than SQLite takes to answer); plain column names,
    // booleans as numbers, so the same text runs on both engines.
    const where = ['org_id = ?', 'is_draft = ?', 'deleted_at IS NULL', 'listed_at IS NOT NULL'];
    const params: unknown[] = [orgId, query.drafts ? 1 : 0];
    const q = query.q?.trim();
    if (q) {
      if (/^\d+$/.test(q)) {
        if (q.length > 15) return { total: 0, rows: [] };
        // A Ref ID is unique: one primary-key read answers both the page and the total.
        const [hit] = await this.listRows.select(`WHERE ${where.join(' AND ')} AND ref_id = ?`, [...params, Number(q)]);
        return { total: hit ? 1 : 0, rows: hit && query.offset === 0 ? [hit] : [] };
      }
      where.push(`filename LIKE ? ${LIKE_ESCAPE}`);
      params.push(containsPattern(q));
    }
    let filter = `WHERE ${where.join(' AND ')}`;
    // A searched name on SQLite: where the names' trigram index has it, asked once for the total and the page.
    const indexed = q ? await this.counts.nameIndex(orgId, query.drafts, q) : null;
    // The total from what the triggers keep: unfiltered, one row of the counts; searched, the names' trigram index on
    // SQLite, else a count of the narrow names table (request-counts.ts) rather than of the list index's wide entries.
    const total =
      (q
        ? await this.counts.matching(orgId, query.drafts, q, indexed)
        : await this.counts.total(orgId, query.drafts)) ??
      Number(((await this.db.query(`SELECT COUNT(*) AS n FROM requests ${filter}`, params)) as { n: unknown }[])[0].n);
    if (q && total === 0) return { total, rows: [] };
    const hint = this.db.options.type === 'better-sqlite3' ? '' : `${MYSQL_LIST_INDEX} `;
    if (indexed && (await this.fewMatch(orgId, query, total))) {
      // Few names match: their Ref IDs from the trigram index, their rows by primary key, sorted, rather than a walk
      // of the list index that may pass every entry before it finds the page.
      filter = `WHERE ref_id IN (${NAMES_MATCHING}) AND ${where.join(' AND ')}`;
      params.unshift(...indexed);
    }
    const column = { listedAt: 'listed_at', filename: 'filename', refId: 'ref_id' }[query.sortBy];
    const order = query.order === 'DESC' ? 'DESC' : 'ASC';
    const rows = await this.listRows.select(
      `${hint}${filter} ORDER BY ${column} ${order}, ref_id ${order} LIMIT ? OFFSET ?`,
      [...params, query.limit, query.offset],
    );
    return { total, rows };
  }

  /**
   * Whether `matched` of the listed rows are few enough to fetch them all and sort rather than walk the list index:
   * newest first, the walk passes about (offset + limit) × listed / matched entries before it has the page; in another
   * order it passes all of them and sorts the matches. An entry passed costs about 70 ns in SQLite, a row fetched by
   * its Ref ID and sorted about 1 µs.
   */
  private async fewMatch(orgId: string, query: ListQuery, matched: number): Promise<boolean> {
    if (this.db.options.type !== 'better-sqlite3') return false;
    const listed = (await this.counts.total(orgId, query.drafts)) ?? 0;
    const walked =
      query.sortBy === 'listedAt' ? Math.min(listed, ((query.offset + query.limit) * listed) / matched) : listed;
    return matched * 15 <= walked;
  }

  async listItems(orgId: string, query: ListQuery): Promise<{ total: number; items: RequestListItem[] }> {
    const { total, rows } = await this.list(orgId, query);
    const parties = await this.requests.partiesOf(rows.map((r) => r.refId));
    const items = await Promise.all(rows.map((r) => this.item(r, parties.get(r.refId) ?? [])));
    return { total, items };
  }

  async draftItems(orgId: string, query: ListQuery): Promise<{ total: number; items: DraftListItem[] }> {
    const { total, rows } = await this.list(orgId, { ...query, drafts: true });
    const parties = await this.requests.partiesOf(rows.map((r) => r.refId));
    const items = await Promise.all(rows.map((r) => this.draftItem(r, parties.get(r.refId) ?? [])));
    return { total, items };
  }

  async one(orgId: string, refId: number, drafts: boolean): Promise<RequestListItem> {
    const req = await this.db.manager.findOneBy(RequestEntity, { orgId, refId });
    if (!req || req.deletedAt || !req.listedAt || req.isDraft !== drafts)
      throw new AppError('NOT_FOUND', 'Request not found.');
    const parties = await this.requests.partiesOf([refId]);
    // One request's page shows each party's fields too (issue 21); the lists leave them out (they are not shown there).
    const fields = new Map(
      (await this.db.manager.find(PartyEntity, { select: { id: true, fields: true }, where: { refId } })).map((p) => [
        p.id,
        p.fields,
      ]),
    );
    const withFields = (parties.get(refId) ?? []).map((p) => Object.assign(p, { fields: fields.get(p.id) ?? null }));
    return this.item(req, withFields);
  }

  async item(r: RequestEntity, parties: PartyEntity[]): Promise<RequestListItem> {
    const data = await this.partyViews(r, parties);
    return {
      id: r.refId,
      refId: r.refId,
      filename: r.filename,
      timestamp: listedTime(r),
      request_status: r.status,
      status: r.signersDone,
      'max-status': r.signersTotal,
      status_text: STATUS_TEXT[r.status] ?? statusText(r),
      seal_error: r.status === 'in-progress' ? r.sealError : null,
      submitted_at: r.submittedAt ? r.submittedAt.toISOString() : null,
      completed_at: r.completedAt ? r.completedAt.toISOString() : null,
      ...(r.status === 'completed' && r.signedFileKey && !r.filesDeletedAt
        ? { verification_url: await this.links.reportUrl(r.orgId, r.refId) }
        : {}),
      // Only on a request whose documents retention deleted, so that other items keep the specification's shape.
      ...(r.filesDeletedAt ? { archived: true, files_deleted_at: r.filesDeletedAt.toISOString() } : {}),
      data,
    };
  }

  async draftItem(r: RequestEntity, parties: PartyEntity[]): Promise<DraftListItem> {
    return {
      id: r.refId,
      refId: r.refId,
      filename: r.filename,
      timestamp: listedTime(r),
      data: await this.partyViews(r, parties),
    };
  }

  private async partyViews(r: RequestEntity, parties: PartyEntity[]): Promise<PartyView[]> {
    const uploadUrl = await this.links.documentUrl(r.orgId, r.refId, 'original');
    const downloadUrl = r.signedFileKey ? await this.links.documentUrl(r.orgId, r.refId, 'signed') : undefined;
    const live = r.status === 'in-progress';
    return Promise.all(
      parties.map(async (p) => {
        const view: PartyView = {
          name: p.name,
          email: p.email,
          phoneNumber: p.phoneNumber,
          observer: p.observer,
          signature_type: p.signatureType,
          status: r.isDraft ? 'SAVED' : p.status,
          orgId: r.orgId,
          refId: r.refId,
          order: p.order,
          uploadUrl,
          sign_url: live && p.tokenHash ? await this.links.signUrl(r.orgId, r.refId, p.order, p.tokenNonce) : null,
          sign_method: p.signMethod ?? null,
          invited_at: p.invitedAt ? p.invitedAt.toISOString() : null,
          opened_at: p.openedAt ? p.openedAt.toISOString() : null,
          signed_at: p.signedAt ? p.signedAt.toISOString() : null,
          rejected_at: p.rejectedAt ? p.rejectedAt.toISOString() : null,
          remark: p.rejectRemark ?? null,
          language: p.language ?? null,
        };
        if (downloadUrl && (p.status === 'completed' || r.status === 'completed')) view.downloadUrl = downloadUrl;
        if (p.fields?.length) view.fields = p.fields.map(fieldStateOf);
        return view;
      }),
    );
  }
}

/** ra-data-simple-rest's query (sort=["timestamp","DESC"], range=[start,end], filter={"q":"…"}), as the lists read it. */
export function restQuery(query: RequestListQueryParams, drafts: boolean): ListQuery {
  const { start, limit, sort, order, filter } = query;
  return { drafts, q: filter.q ?? filter.search, offset: start, limit, order, sortBy: SORT_COLUMN[sort] };
}
