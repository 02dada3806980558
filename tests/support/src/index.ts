export { decodePng, makePng, pngDataUrl, signaturePng, type DecodedPng } from './png';
export { fixturePath, fixturePdf, readFixture, sharedDir } from './fixtures';
