import type { PlacementInput, UploadedRecipient, UploadResponse } from '@esign/contract';
import { allPages, DEFAULT_BOX, parseRectangle, round2, toRectangle } from './geometry';
import type { Box } from './geometry';

/** What the Initiate page leaves in local storage for /upload (spec section 3). */
export const UPLOAD_KEYS = [
  'upload_response',
  'file-url',
  'total-pages',
  'total_signatory',
  'total_signatory_array',
  'draggableHeight',
  'refId',
] as const;

/** One signer's placement as the screen edits it. */
export interface SignerPlacement {
  refId: number;
  order: number;
  name: string;
  email: string;
  phoneNumber: string;
  signatureType: string | null;
  /** Selected pages, ascending (all pages while applyAll). */
  pages: number[];
  applyAll: boolean;
  /** The box in 840-unit page coordinates. */
  box: Box;
  /** The page the box was last dragged on. */
  dragPage: number;
}

export interface CopyReceiver {
  order: number;
  name: string;
  email: string;
}

export interface PlacementSession {
  refId: number;
  fileUrl: string;
  totalPages: number;
  signers: SignerPlacement[];
  copyReceivers: CopyReceiver[];
}

const parseJson = (text: string | null): unknown => {
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
};

const dragPageOf = (dragCoord: unknown, fallback: number): number => {
  const page = (dragCoord as { page?: unknown } | null)?.page;
  return typeof page === 'number' && Number.isInteger(page) && page >= 1 ? page : fallback;
};

/** A stored recipient as the screen's state: its saved placement, or the defaults (page 1, bottom-left box). */
export function toPlacement(recipient: UploadedRecipient, totalPages: number): SignerPlacement {
  const applyAll = recipient.apply_all === true;
  const stored = Array.isArray(recipient.pageNo)
    ? recipient.pageNo.map(Number).filter((page) => Number.isInteger(page) && page >= 1 && page <= totalPages)
    : [];
  const pages = applyAll ? allPages(totalPages) : stored.length ? [...new Set(stored)].sort((a, b) => a - b) : [1];
  return {
    refId: recipient.refId,
    order: recipient.order,
    name: recipient.name,
    email: recipient.email,
    phoneNumber: recipient.phoneNumber,
    signatureType: recipient.signature_type ?? null,
    pages,
    applyAll,
    box: parseRectangle(recipient.rectangle) ?? DEFAULT_BOX,
    dragPage: dragPageOf(recipient.drag_coord, pages[0] ?? 1),
  };
}

/** The values the Initiate page stored, or null when there is no upload to place (the page then goes away). */
export function readPlacementSession(storage: Storage = localStorage): PlacementSession | null {
  const response = parseJson(storage.getItem('upload_response')) as Partial<UploadResponse> | null;
  if (!response || !Array.isArray(response.requests)) return null;
  const fileUrl = storage.getItem('file-url') || response['file-url'];
  const totalPages = Number(storage.getItem('total-pages')) || Number(response['total-pages']) || 1;
  const refId = Number(response.refId ?? storage.getItem('refId'));
  if (!fileUrl || !Number.isFinite(refId)) return null;
  const recipients = [...response.requests].sort((a, b) => a.order - b.order);
  return {
    refId,
    fileUrl,
    totalPages,
    signers: recipients
      .filter((r) => !r.observer)
      .map((r) => toPlacement({ ...r, refId: r.refId ?? refId }, totalPages)),
    copyReceivers: recipients.filter((r) => r.observer).map(({ order, name, email }) => ({ order, name, email })),
  };
}

export const clearPlacementSession = (storage: Storage = localStorage): void => {
  for (const key of UPLOAD_KEYS) storage.removeItem(key);
};

/** The `data` of POST /v1/save: one entry per signer. */
export const saveEntries = (signers: SignerPlacement[], totalPages: number): PlacementInput[] =>
  signers.map((signer) => ({
    refId: signer.refId,
    order: signer.order,
    pageNo: signer.applyAll ? allPages(totalPages) : signer.pages,
    apply_all: signer.applyAll,
    rectangle: toRectangle(signer.box),
    drag_coord: { x: round2(signer.box.x), y: round2(signer.box.y), page: signer.dragPage },
  }));

/** Signers without a page to be signed (and without apply-all): SAVE refuses them. */
export const withoutPages = (signers: SignerPlacement[]): SignerPlacement[] =>
  signers.filter((signer) => !signer.applyAll && signer.pages.length === 0);

/** Whether a signer's box is placed on this page. */
export const isOnPage = (signer: SignerPlacement, page: number): boolean =>
  signer.applyAll || signer.pages.includes(page);
