import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { Clock } from '../../common/clock';
import { AuditEventEntity } from './audit-event.entity';

export interface AuditInput {
  orgId: string;
  refId?: number | null;
  partyOrder?: number | null;
  type: string;
  actor: string;
  ip?: string | null;
  data?: Record<string, unknown> | null;
}

/** A stable JSON text (sorted keys) so the hash of an event can be recomputed from the row. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function eventHash(prevHash: string | null, e: Omit<AuditEventEntity, 'id' | 'hash' | 'prevHash'>): string {
  const body = canonicalJson({
    orgId: e.orgId,
    refId: e.refId,
    partyOrder: e.partyOrder,
    type: e.type,
    actor: e.actor,
    ip: e.ip,
    data: e.data,
    at: e.createdAt.toISOString(),
  });
  return createHash('sha256')
    .update(`${prevHash ?? ''}\n${body}`, 'utf8')
    .digest('hex');
}

/** One event of a request's audit trail, as `GET /api/requests/:refId/audit` answers it. */
export interface AuditTrailEvent {
  at: string;
  type: string;
  actor: string;
  ip: string | null;
  data: Record<string, unknown> | null;
  hash: string;
  prevHash?: string;
}

export interface AuditTrail {
  refId: number;
  events: AuditTrailEvent[];
  /** The chain recomputed now; lastHash is the hash the certificate of completion prints. */
  chain: { intact: boolean; lastHash: string | null };
}

/**
 * Audit events, written through the caller's EntityManager so they commit with the change they describe. The events
 * of one request form a hash chain.
 */
@Injectable()
export class AuditService {
  constructor(private readonly clock: Clock) {}

  async record(manager: EntityManager, input: AuditInput): Promise<AuditEventEntity> {
    const repo = manager.getRepository(AuditEventEntity);
    const refId = input.refId ?? null;
    const prev =
      refId === null
        ? null
        : await repo.findOne({ where: { orgId: input.orgId, refId }, order: { id: 'DESC' }, select: { hash: true } });
    const event = repo.create({
      orgId: input.orgId,
      refId,
      partyOrder: input.partyOrder ?? null,
      type: input.type,
      actor: input.actor,
      ip: input.ip ?? null,
      data: input.data ?? null,
      createdAt: this.clock.now(),
      prevHash: prev?.hash ?? null,
    });
    event.hash = eventHash(event.prevHash, event);
    return repo.save(event);
  }

  /** An event of a recipient's, on their request's chain (actor party:<order> unless told otherwise). */
  recordParty(
    manager: EntityManager,
    party: { orgId: string; refId: number; order: number },
    type: string,
    ip: string | null,
    data: Record<string, unknown> | null = null,
    actor = `party:${party.order}`,
  ): Promise<AuditEventEntity> {
    return this.record(manager, {
      orgId: party.orgId,
      refId: party.refId,
      partyOrder: party.order,
      type,
      actor,
      ip,
      data,
    });
  }

  /**
   * A request's audit trail as `GET /api/requests/:refId/audit` answers it. The caller (requests, which owns that
   * route) has checked that the request is the organisation's and not deleted.
   */
  async trail(manager: EntityManager, orgId: string, refId: number): Promise<AuditTrail> {
    const events = await this.list(manager, orgId, refId);
    return {
      refId,
      events: events.map((e) => ({
        at: e.createdAt.toISOString(),
        type: e.type,
        actor: e.actor,
        ip: e.ip,
        data: e.data,
        hash: e.hash,
        ...(e.prevHash ? { prevHash: e.prevHash } : {}),
      })),
      chain: { intact: this.verifyChain(events) === null, lastHash: events.at(-1)?.hash ?? null },
    };
  }

  list(manager: EntityManager, orgId: string, refId: number): Promise<AuditEventEntity[]> {
    return manager.getRepository(AuditEventEntity).find({ where: { orgId, refId }, order: { id: 'ASC' } });
  }

  /** Recomputes the chain; answers the id of the first event that does not match, or null when intact. */
  verifyChain(events: AuditEventEntity[]): number | null {
    let prev: string | null = null;
    for (const e of events) {
      if (e.prevHash !== prev || eventHash(prev, e) !== e.hash) return e.id;
      prev = e.hash;
    }
    return null;
  }
}
