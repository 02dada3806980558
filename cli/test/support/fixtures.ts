import { pngDataUrl, signaturePng } from '@esign/test-support';

/** The shared fixtures (shared/ beside the checkout, or $SHARED_DIR) and a PDF of them. */
export { fixturePdf, sharedDir } from '@esign/test-support';

/** A small drawn signature (a dark stroke on transparent), as the signature pad posts it: a PNG data URL. */
export const signaturePngDataUrl = (): string => pngDataUrl(signaturePng());
