export { decodePng, makePng, pngDataUrl, signaturePng, type DecodedPng } from './png';
export { fixturePath, fixturePdf, readFixture, sharedDir } from './fixtures';
export {
  callApi,
  sendRequest,
  type RequestPlacement,
  type RequestRecipient,
  type SendRequestOptions,
  type SentRequest,
} from './requests';
