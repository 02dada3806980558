import { DEFAULT_RECTANGLE } from '@esign/contract';
import type { PlacementInput, UploadedRecipient, UploadResponse } from '@esign/contract';
import { toFieldInput } from '../../fields/model';
import type { PlacedField } from '../../fields/model';
import { allPages, parseRectangle, round2, stagedBox, toRectangle } from './geometry';
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
  /**
   * The box in 840-unit page coordinates: where it was dragged (or saved), else where it is shown until it is dragged
   * (near the top of the page, offset per signer: stagedBox).
   */
  box: Box;
  /**
   * Whether the box was placed: dragged here, or saved at a place of its own before. A box never dragged is sent as
   * the specification's default rectangle (DEFAULT_RECTANGLE, bottom-left), whatever place it is shown at.
   */
  dragged: boolean;
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

/**
 * A stored recipient as the screen's state: its saved placement, or the defaults (page 1; a box never dragged, shown
 * at the `index`-th signer's staged place). A stored rectangle counts as placed when it was dragged before (drag_coord)
 * or is not the default one.
 */
export function toPlacement(recipient: UploadedRecipient, totalPages: number, index = 0): SignerPlacement {
  const applyAll = recipient.apply_all === true;
  const stored = Array.isArray(recipient.pageNo)
    ? recipient.pageNo.map(Number).filter((page) => Number.isInteger(page) && page >= 1 && page <= totalPages)
    : [];
  const pages = applyAll ? allPages(totalPages) : stored.length ? [...new Set(stored)].sort((a, b) => a - b) : [1];
  const storedBox = parseRectangle(recipient.rectangle);
  const dragged =
    storedBox !== null &&
    ((recipient.drag_coord !== null && recipient.drag_coord !== undefined) ||
      recipient.rectangle.replace(/\s/g, '') !== DEFAULT_RECTANGLE);
  return {
    refId: recipient.refId,
    order: recipient.order,
    name: recipient.name,
    email: recipient.email,
    phoneNumber: recipient.phoneNumber,
    signatureType: recipient.signature_type ?? null,
    pages,
    applyAll,
    box: (dragged && storedBox) || stagedBox(index),
    dragged,
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
      .map((r, index) => toPlacement({ ...r, refId: r.refId ?? refId }, totalPages, index)),
    copyReceivers: recipients.filter((r) => r.observer).map(({ order, name, email }) => ({ order, name, email })),
  };
}

export const clearPlacementSession = (storage: Storage = localStorage): void => {
  for (const key of UPLOAD_KEYS) storage.removeItem(key);
};

/**
 * The `data` of POST /v1/save: one entry per signer. A box never dragged is the specification's default rectangle
 * ('0,790,150,840', spec section 5) with no drag_coord; a dragged one is where it was dropped. With `fields` (every
 * signer's), each entry carries its signer's ([] when none, which removes any saved before); without (the saved ones
 * could not be read), entries carry none and the API keeps what it has.
 */
export const saveEntries = (
  signers: SignerPlacement[],
  totalPages: number,
  fields?: readonly PlacedField[] | null,
): PlacementInput[] =>
  signers.map((signer) => ({
    refId: signer.refId,
    order: signer.order,
    pageNo: signer.applyAll ? allPages(totalPages) : signer.pages,
    apply_all: signer.applyAll,
    rectangle: signer.dragged ? toRectangle(signer.box) : DEFAULT_RECTANGLE,
    drag_coord: signer.dragged ? { x: round2(signer.box.x), y: round2(signer.box.y), page: signer.dragPage } : null,
    ...(fields
      ? { fields: fields.filter((field) => field.signer === signer.order).map((field) => toFieldInput(field)) }
      : {}),
  }));

/** Signers without a page to be signed (and without apply-all): SAVE refuses them. */
export const withoutPages = (signers: SignerPlacement[]): SignerPlacement[] =>
  signers.filter((signer) => !signer.applyAll && signer.pages.length === 0);

/** Whether a signer's box is placed on this page. */
export const isOnPage = (signer: SignerPlacement, page: number): boolean =>
  signer.applyAll || signer.pages.includes(page);
