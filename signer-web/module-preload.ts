import type { Plugin } from 'vite';

/**
 * Adds `<link rel="modulepreload">` for the chunk of a lazily imported module to the page's HTML, so that the browser
 * fetches and compiles it while the app's own JavaScript runs, instead of when the app first imports it. Used for
 * pdf.js (issue 23): a signing link opens its document as the app starts, and pdf.js was the longest step before it.
 * The build fails when no chunk is that module's, rather than silently preloading nothing.
 */
export function modulePreload(module: RegExp): Plugin {
  return {
    name: 'esign-module-preload',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const chunk = Object.values(ctx.bundle ?? {}).find(
          (c) => c.type === 'chunk' && c.facadeModuleId !== null && module.test(c.facadeModuleId),
        );
        if (!chunk) throw new Error(`No chunk of the build is ${module}'s: nothing to preload.`);
        return [
          {
            tag: 'link',
            attrs: { rel: 'modulepreload', crossorigin: true, href: `/${chunk.fileName}` },
            injectTo: 'head',
          },
        ];
      },
    },
  };
}
