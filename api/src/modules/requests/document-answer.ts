import { StreamableFile, type Logger } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { Messages, RequestMessages } from '@esign/contract';
import type { Response } from 'express';
import { AppError } from '../../common/app-error';
import { errorBody } from '../../common/error.filter';
import { byteRange, type ByteRange } from '../../common/http/byte-range';

/** A document to answer: streamed from the store (only the range's bytes when it was asked for one), or in memory. */
export type DocumentBody =
  | { stream: Readable; size: number; filename: string; range?: ByteRange | null }
  | { bytes: Buffer; size: number; filename: string };

/** What a store is asked for, given a document's length: the bytes of an HTTP Range header it answers, else all. */
export const wantedRange =
  (header: string | undefined) =>
  (size: number): ByteRange | null => {
    const wanted = byteRange(header, size);
    return typeof wanted === 'object' ? wanted : null;
  };

/**
 * Answers a PDF whose permission has been checked, with HTTP Range requests (issue 23): one range 206 with
 * Content-Range, a range beyond the end 416, anything else the whole 200. Shared by the document links
 * (/docs/files) and the signer's own document call (/v1/document).
 */
export function answerDocument(
  res: Response,
  doc: DocumentBody,
  rangeHeader: string | undefined,
  name: string,
  log: Logger,
): StreamableFile {
  res.setHeader('Cache-Control', 'private, no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  // pdf.js's viewer asks for the document in ranges (issue 23): the first page is drawn from the bytes it needs.
  res.setHeader('Accept-Ranges', 'bytes');
  const range = byteRange(rangeHeader, doc.size);
  if (range === 'unsatisfiable') {
    if ('stream' in doc) doc.stream.destroy();
    res.setHeader('Content-Range', `bytes */${doc.size}`);
    throw new AppError('RANGE_NOT_SATISFIABLE', RequestMessages.rangeNotSatisfiable);
  }
  if ('stream' in doc && (range === 'none') !== !doc.range) {
    // The store was asked for other bytes than are answered here: never send them under this range's headers.
    doc.stream.destroy();
    throw new Error('the document store answered other bytes than the range asked for');
  }
  let file: StreamableFile;
  if (range === 'none') {
    file = 'stream' in doc ? new StreamableFile(doc.stream, { length: doc.size }) : new StreamableFile(doc.bytes);
  } else {
    res.status(206);
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${doc.size}`);
    const length = range.end - range.start + 1;
    file =
      'stream' in doc
        ? new StreamableFile(doc.stream, { length })
        : new StreamableFile(doc.bytes.subarray(range.start, range.end + 1));
  }
  file.setErrorHandler((err, response) => streamFailed(err, response as Response, log));
  res.setHeader('Content-Type', 'application/pdf');
  res.setHeader('Content-Disposition', `inline; filename*=UTF-8''${encodeURIComponent(name)}`);
  return file;
}

/**
 * A stream that fails once the reply has begun (a document that no longer matches its hash, a store that went away)
 * must not end the response as if it were complete: it is cut off. One that fails before the first byte answers 500
 * like any other internal error.
 */
function streamFailed(err: Error, res: Response, log: Logger): void {
  log.error(`document download failed: ${err.message}`);
  if (res.destroyed) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.removeHeader('Content-Length');
  res.removeHeader('Content-Disposition');
  res.removeHeader('Content-Range');
  res.status(500).json(errorBody('INTERNAL', Messages.internalError));
}
