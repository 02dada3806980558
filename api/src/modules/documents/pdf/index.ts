export type { PageGeometry, PlacedBox } from './geometry';
export { inspectPdf, type InspectedPdf, type InspectPdfInput } from './inspect';
export { fromRuns, geometryOf, toRuns, type PageView } from './pageRuns';
export {
  normaliseRectangle,
  placeBoxes,
  toPageBox,
  type PageBox,
  type PlaceBoxesInput,
  type Rectangle,
} from './placement';
export {
  fillFormFields,
  readFormFields,
  signatureBoxesFromAnnotation,
  validateAnnotation,
  type SignatureFieldBox,
  type SignatureFieldBoxes,
} from './forms';
