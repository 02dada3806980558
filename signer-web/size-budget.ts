import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/**
 * Fails the build when the JavaScript a recipient downloads before the document is shown (the entry chunk, the
 * signing page's chunk and what they import statically, gzipped) grows over `maxKb`. pdf.js, the signature pad and
 * the camera are loaded later and are not counted; nor are assets (the face steps' onnxruntime wasm, 14 MB, is one).
 * `lazyOnly`: modules that must never be part of that first JavaScript (the build fails when one is).
 */
export function sizeBudget(maxKb: number, firstPageChunks: RegExp, lazyOnly?: RegExp): Plugin {
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
      if (lazyOnly)
        for (const name of wanted) {
          const early = byName.get(name)!.moduleIds.find((id) => lazyOnly.test(id));
          if (early) this.error(`${early} is in the signing page's first JavaScript (${name}); it must load later.`);
        }
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
