import { DOMParser, type Element, type Node } from '@xmldom/xmldom';
import { AdminMessages, LOGO_MAX_BYTES, type LogoType } from '@esign/contract';
import { AppError } from '../../common/app-error';

/**
 * What an organisation's logo is, by its content and never by its name (issue 22): a PNG (its signature and IHDR), a
 * JPEG (SOI at the start, EOI after it) or an SVG (well-formed XML whose root is <svg>), at most LOGO_MAX_BYTES. An SVG
 * is shown in the console and on the signer's pages, so it may not carry anything that runs or fetches: scripts, event
 * handlers, embedded pages (foreignObject), a DOCTYPE or entities, or a reference (href, xlink:href, url(), @import)
 * to anything but one of its own `#id`s or an embedded PNG or JPEG (`data:image/png|jpeg`). The logo is also served
 * with a CSP that allows none of that (organisations.controller.ts), so a parser's blind spot is not an opening.
 */
export function checkLogo(bytes: Buffer | undefined): LogoType {
  if (!bytes || bytes.length === 0 || bytes.length > LOGO_MAX_BYTES)
    throw new AppError('VALIDATION_FAILED', AdminMessages.logoInvalid);
  if (isPng(bytes)) return 'image/png';
  if (isJpeg(bytes)) return 'image/jpeg';
  const svg = parseSvg(bytes);
  if (!svg) throw new AppError('UNSUPPORTED_MEDIA_TYPE', AdminMessages.logoInvalid);
  if (!svgIsSafe(svg.text, svg.root)) throw new AppError('UNSUPPORTED_MEDIA_TYPE', AdminMessages.logoUnsafeSvg);
  return 'image/svg+xml';
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The PNG signature, then the IHDR chunk every PNG starts with. */
const isPng = (b: Buffer) =>
  b.length > 24 && b.subarray(0, 8).equals(PNG_SIGNATURE) && b.toString('latin1', 12, 16) === 'IHDR';

/** SOI and a marker at the start, an EOI (FF D9) somewhere after: a truncated header alone is no image. */
const isJpeg = (b: Buffer) => b.length > 4 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff && b.lastIndexOf(EOI) > 2;
const EOI = Buffer.from([0xff, 0xd9]);

/** The SVG's text and root element, or null when the bytes are not well-formed XML with an <svg> root. */
function parseSvg(bytes: Buffer): { text: string; root: Element } | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
  // A DTD could declare entities (expansion bombs, external files): an SVG with one is refused before any parsing.
  if (/<svg[\s>]/i.test(text) && /<!DOCTYPE|<!ENTITY|<!ELEMENT|<!ATTLIST/i.test(text))
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', AdminMessages.logoUnsafeSvg);
  // The root comes first: after an optional BOM, the XML declaration or processing instructions, and comments.
  if (!/^\uFEFF?\s*(<\?[^>]*\?>\s*|<!--[\s\S]*?-->\s*)*<svg[\s>]/i.test(text)) return null;
  try {
    const doc = new DOMParser({
      onError: (level, message) => {
        throw new Error(`${level}: ${message}`);
      },
    }).parseFromString(text, 'image/svg+xml');
    const root = doc.documentElement;
    return root && root.localName === 'svg' ? { text, root } : null;
  } catch {
    return null;
  }
}

const ELEMENT_NODE = 1;
const PROCESSING_INSTRUCTION_NODE = 7;

/** Elements that run script, embed other documents or react to events. */
const FORBIDDEN_ELEMENTS = new Set(['script', 'foreignobject', 'iframe', 'embed', 'object', 'handler', 'listener']);

/** A reference the logo may make: to one of its own ids, or an embedded PNG or JPEG. */
const LOCAL_REFERENCE = /^\s*(#[^\s]*|data:image\/(png|jpeg);base64,[A-Za-z0-9+/=\s]*)\s*$/i;

/** Every url(…) of a style text, with the quotes around its argument removed. */
const urlsIn = (css: string): string[] => [...css.matchAll(/url\s*\(\s*(['"]?)([^'")]*)\1\s*\)/gi)].map((m) => m[2]);

function cssIsSafe(css: string): boolean {
  // Escapes could spell url( or a scheme in pieces; @import and expression() fetch or run.
  if (/\\|@import|expression\s*\(|javascript:/i.test(css)) return false;
  return urlsIn(css).every((url) => LOCAL_REFERENCE.test(url));
}

function svgIsSafe(text: string, root: Element): boolean {
  // Processing instructions other than the XML declaration (<?xml-stylesheet href=…?>) load outside resources.
  if (/<\?(?!xml\s)[^>]*\?>/i.test(text)) return false;
  const stack: Node[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.nodeType === PROCESSING_INSTRUCTION_NODE) return false;
    if (node.nodeType !== ELEMENT_NODE) continue;
    const element = node as Element;
    const name = (element.localName ?? element.nodeName).toLowerCase();
    if (FORBIDDEN_ELEMENTS.has(name)) return false;
    if (name === 'style' && !cssIsSafe(element.textContent ?? '')) return false;
    for (let i = 0; i < element.attributes.length; i++) {
      const attribute = element.attributes.item(i)!;
      const local = (attribute.localName ?? attribute.name).toLowerCase();
      const value = attribute.value;
      if (local.startsWith('on')) return false;
      if (local === 'href' && !LOCAL_REFERENCE.test(value)) return false;
      // An animation may set an attribute (href, an event handler) to what a static check never saw.
      if (local === 'attributename' && /^(xlink:)?href$|^on/i.test(value.trim())) return false;
      if (/javascript:|vbscript:/i.test(value)) return false;
      if (/url\s*\(/i.test(value) && !cssIsSafe(value)) return false;
    }
    for (let child = element.firstChild; child; child = child.nextSibling) stack.push(child);
  }
  return true;
}
