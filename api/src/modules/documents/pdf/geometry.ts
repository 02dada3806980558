/**
 * The shapes of a document's pages and of the boxes placed on them. They belong to the PDF, not to a request: a
 * request stores them (`RequestEntity.geometry`, `PartyEntity.boxes`), and documents and signing read them without
 * knowing requests (ARCHITECTURE.md, "Modules and the one-way rule").
 */

/** Geometry of a run of pages with the same boxes, in PDF points (pages "1-3,7" are 1-based). */
export interface PageGeometry {
  pages: string;
  /** The media box. */
  mediaBox: [number, number, number, number];
  /** The visible (crop) box, clipped to the media box; boxes are placed inside it. */
  cropBox: [number, number, number, number];
  rotation: number;
}

/** A signature box in the real page's user space (PDF points, origin bottom-left), for a run of pages. */
export interface PlacedBox {
  pages: string;
  x: number;
  y: number;
  width: number;
  height: number;
}
