import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/**
 * Fails the build when the JavaScript a recipient downloads before the document is shown (the entry chunk, the
 * signing page's chunk and what they import statically, gzipped) grows over `maxKb`. pdf.js, the signature pad and
 * the camera are loaded later and are not counted.
 */
export function sizeBudget(maxKb: number, firstPageChunks: RegExp): Plugin {
  return {
    name: 'esign-size-budget',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((c) => c.type === 'chunk');
      const byName = new Map(chunks.map((c) => [c.fileName, c]));
      const wanted = new Set<string>();
      const add = (fileName: string) => {
        const chunk = byName.get(fileName);
        if (!chunk || wanted.has(fileName)) return;
        wanted.add(fileName);
        chunk.imports.forEach(add);
      };
      chunks
        .filter((c) => c.isEntry || (c.facadeModuleId && firstPageChunks.test(c.facadeModuleId)))
        .forEach((c) => add(c.fileName));
      const bytes = [...wanted].reduce((sum, name) => sum + gzipSync(byName.get(name)!.code).length, 0);
      const kb = bytes / 1024;
      this.info(`first page JavaScript: ${kb.toFixed(1)} KB gzipped (budget ${maxKb} KB) in ${wanted.size} chunk(s)`);
      if (kb > maxKb)
        this.error(
          `The signing page's first JavaScript is ${kb.toFixed(1)} KB gzipped, over its budget of ${maxKb} KB.`,
        );
    },
  };
}
