import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/** What is worth compressing: text and wasm. Images, fonts in compressed formats and PDFs are not. */
const COMPRESSIBLE = /\.(m?js|css|json|svg|wasm|ttf|pfb|icc)$/i;

/**
 * Writes a gzip copy (`name.gz`, level 9) beside every compressible file of the build over 1 KB, once, at build time.
 * The API sends it to browsers that accept gzip (api/src/common/precompressed.ts) instead of compressing the same
 * bytes on every request: the signer app's pdf.js worker alone is 1.2 MB. Used by both apps' vite.config.ts.
 * It runs once the bundle is written, so it compresses the final code (Vite rewrites chunks up to generateBundle).
 */
export function precompress(): Plugin {
  return {
    name: 'esign-precompress',
    apply: 'build',
    writeBundle: {
      order: 'post',
      sequential: true,
      handler(options, bundle) {
        const dir = options.dir ?? path.dirname(options.file ?? '.');
        for (const item of Object.values(bundle)) {
          if (!COMPRESSIBLE.test(item.fileName)) continue;
          const source = item.type === 'chunk' ? Buffer.from(item.code) : Buffer.from(item.source);
          if (source.length < 1024) continue;
          writeFileSync(path.join(dir, `${item.fileName}.gz`), gzipSync(source, { level: 9 }));
        }
      },
    },
  };
}
