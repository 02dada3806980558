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

/**
 * Builds `entry` as an entry of its own and adds it to the page's HTML as an async module script, so it runs as soon
 * as it has arrived, before the app's own (deferred) modules have been evaluated. Used for boot.ts (issue 23), which
 * starts pdf.js's worker thread on a signing link. Modules it shares with the app are chunks of their own, one
 * instance for both.
 */
export function earlyEntry(entry: string): Plugin {
  return {
    name: 'esign-early-entry',
    apply: 'build',
    config: (config) => {
      const input = config.build?.rollupOptions?.input ?? { index: 'index.html' };
      return { build: { rollupOptions: { input: { ...(input as Record<string, string>), boot: entry } } } };
    },
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const chunk = Object.values(ctx.bundle ?? {}).find(
          (c) => c.type === 'chunk' && c.isEntry && c.facadeModuleId !== null && c.facadeModuleId.endsWith(entry),
        );
        if (!chunk) throw new Error(`No entry chunk of the build is ${entry}: nothing to start early.`);
        return [
          {
            tag: 'script',
            attrs: { type: 'module', async: true, crossorigin: true, src: `/${chunk.fileName}` },
            injectTo: 'head-prepend',
          },
        ];
      },
    },
  };
}
