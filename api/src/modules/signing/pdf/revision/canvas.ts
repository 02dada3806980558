import { deflateSync } from 'node:zlib';
import {
  isDict,
  PdfName as Name,
  PdfRef as Ref,
  PdfStreamValue,
  PdfString as Str,
  textOf,
  type PdfDict as Dict,
  type PdfValue,
} from '@esign/pdf-syntax';
import { PDF, PdfDict, PdfName, type PdfObject, type PdfRef, type PdfStream } from '@libpdf/core';
import { fontIn, measuringFont, type FontKey } from '../fonts';
import type { PageShown } from '../page-content';
import type { Revision } from './revision';
import { sharedCovers, sharedFont, type SharedFont } from './shared-fonts';

/*
 * What a revision draws is made with @libpdf/core (images, fonts and their subsets, form XObjects, the certificate's
 * pages) in a small scratch document of its own, never in the document being signed: that one is not loaded at all.
 * The objects a revision uses are then copied from the scratch into the revision's update with the document's
 * object numbers (Import), and the pages they go on are changed by the revision (revision.ts). So the library does
 * the drawing it is good at, and the document is read and written only where the revision touches it.
 */

/** Streams without a filter, at least this long, are compressed as @libpdf/core compresses them when it saves. */
const COMPRESS_FROM = 512;

/** Copies objects of a @libpdf/core document into a revision, each once, their references renumbered. */
export class Import {
  private readonly copied = new Map<number, Ref>();

  constructor(
    private readonly source: PDF,
    private readonly revision: Revision,
    /** Objects of the source not to copy: references to them become these references of the document. */
    private readonly substitutes = new Map<number, Ref>(),
  ) {}

  /** The document's reference for a source object, copying it (and what it refers to) on first use. */
  ref(ref: PdfRef): Ref {
    const substitute = this.substitutes.get(ref.objectNumber);
    if (substitute) return substitute;
    let copy = this.copied.get(ref.objectNumber);
    if (!copy) {
      copy = this.revision.allocate();
      this.copied.set(ref.objectNumber, copy);
      const object = this.source.getObject(ref);
      if (!object) throw new Error(`Object ${ref.objectNumber} of the drawing is missing.`);
      const value = this.value(object);
      this.revision.set(copy, value);
    }
    return copy;
  }

  /** A direct value of the source as the document's (a stream as a stream object's body). */
  value(object: PdfObject): PdfValue | PdfStreamValue {
    switch (object.type) {
      case 'stream':
        return this.stream(object as PdfStream);
      case 'dict':
        return this.dict(object as PdfDict);
      case 'array':
        return [...(object as Iterable<PdfObject>)].map((item) => this.direct(item));
      case 'name':
        return new Name((object as PdfName).value);
      case 'number':
        return (object as { value: number }).value;
      case 'string':
        return new Str(Buffer.from((object as { bytes: Uint8Array }).bytes));
      case 'bool':
        return (object as { value: boolean }).value;
      case 'null':
        return null;
      case 'ref':
        return this.ref(object as PdfRef);
      default:
        throw new Error(`A ${object.type} cannot be copied into the document.`);
    }
  }

  private direct(object: PdfObject): PdfValue {
    const value = this.value(object);
    if (value instanceof PdfStreamValue) throw new Error('A stream must be an indirect object.');
    return value;
  }

  private dict(dict: PdfDict): Dict {
    const out: Dict = new Map();
    for (const [key, item] of dict) if (item !== undefined && item !== null) out.set(key.value, this.direct(item));
    return out;
  }

  private stream(stream: PdfStream): PdfStreamValue {
    const dict = this.dict(stream);
    dict.delete('Length');
    if (dict.has('Filter') || stream.data.length < COMPRESS_FROM)
      return new PdfStreamValue(dict, Buffer.from(stream.data));
    const { data, compressed } = compressedData(stream);
    if (compressed) dict.set('Filter', new Name('FlateDecode'));
    return new PdfStreamValue(dict, data);
  }
}

/**
 * A stream's data as copied: deflated when that makes it smaller. Kept for the stream's data as long as both live:
 * the shared font subsets (shared-fonts.ts) are copied into every job's document, and deflating their font program
 * took about 10 ms a seal (issue 23). A drawing's own streams are copied once and forgotten with their scratch.
 */
const deflated = new WeakMap<Uint8Array, { data: Buffer; compressed: boolean }>();
function compressedData(stream: PdfStream): { data: Buffer; compressed: boolean } {
  const source = stream.data;
  let known = deflated.get(source);
  if (!known) {
    const squeezed = deflateSync(source);
    known =
      squeezed.length < source.length
        ? { data: squeezed, compressed: true }
        : { data: Buffer.from(source), compressed: false };
    deflated.set(source, known);
  }
  return known;
}

/**
 * The fonts of one revision's drawing. Text whose characters are all in a face's shared subset is drawn with it (put
 * in the document once per job, shared-fonts.ts); other text gets the face subset for this revision alone. Glyph ids
 * are the font file's own either way, so a line drawn with one reads the same with the other.
 */
export class RevisionFonts {
  /** Stand-ins in the scratch document for the shared subsets, by face. */
  private readonly standIns = new Map<FontKey, PdfRef>();

  constructor(
    private readonly scratch: PDF,
    /** shared: false draws with the scratch document's own subsets only (a document saved by @libpdf/core). */
    private readonly options: { shared: boolean } = { shared: true },
  ) {}

  /** The font to draw `text` with in face `key`: its reference (in the scratch document) and the text's glyph ids. */
  encode(key: FontKey, text: string): { ref: PdfRef; gids: number[] } {
    if (this.options.shared && sharedCovers(key, text)) {
      let ref = this.standIns.get(key);
      if (!ref) {
        ref = this.scratch.context.register(new PdfDict([['EsignSharedFont', PdfName.of(key)]]));
        this.standIns.set(key, ref);
      }
      return { ref, gids: measuringFont(key).encodeTextToGids(text) };
    }
    const font = fontIn(this.scratch, key);
    return { ref: this.scratch.fonts.getRef(font), gids: font.encodeTextToGids(text) };
  }

  /** The stand-ins used, to be replaced by the shared subsets' objects in the document. */
  used(): [FontKey, PdfRef][] {
    return [...this.standIns];
  }
}

/** Glyph ids as a content stream's hex string (Identity-H: two bytes each). */
export const glyphHex = (gids: number[]): string => gids.map((gid) => gid.toString(16).padStart(4, '0')).join('');

/** What drawing code (the stamp, the fields, the attachments) may do to the document being revised. */
export interface Canvas {
  /** The scratch document where the drawing's objects are made. */
  readonly scratch: PDF;
  readonly fonts: RevisionFonts;
  readonly pageCount: number;
  /** A number unique to this revision (for resource names no earlier revision used). */
  readonly uniqueNumber: number;
  shown(pageNo: number): PageShown;
  /** Names a form XObject (a scratch object) in the page's resources. */
  addForm(pageNo: number, name: string, form: PdfRef): void;
  /** Appends a content stream (a scratch object) to the page, after its own content kept between q and Q. */
  appendContent(pageNo: number, stream: PdfRef): void;
  /** Whether the document's EmbeddedFiles tree (or this revision) holds a file under `name` already. */
  hasAttachment(name: string): boolean;
}

/** A revision's canvas: drawing in a scratch document, copied into the revision as the pages ask for it. */
export class RevisionCanvas implements Canvas {
  readonly scratch = PDF.create();
  readonly fonts = new RevisionFonts(this.scratch);
  private importer: Import | null = null;
  private readonly substitutes = new Map<number, Ref>();
  private readonly pending: (() => void)[] = [];
  private attachmentNames: Set<string> | null = null;

  constructor(readonly revision: Revision) {}

  get pageCount(): number {
    return this.revision.pageCount;
  }

  get uniqueNumber(): number {
    return this.revision.uniqueNumber;
  }

  shown(pageNo: number): PageShown {
    return this.revision.shown(pageNo);
  }

  // The page changes wait for the fonts' subsets (made when the drawing is finished): references to scratch objects
  // are copied then.
  addForm(pageNo: number, name: string, form: PdfRef): void {
    this.pending.push(() => this.revision.addXObject(pageNo, name, this.imported().ref(form)));
  }

  appendContent(pageNo: number, stream: PdfRef): void {
    this.pending.push(() => this.revision.appendContent(pageNo, this.imported().ref(stream)));
  }

  hasAttachment(name: string): boolean {
    this.attachmentNames ??= new Set(embeddedFileNames(this.revision).map(([key]) => textOf(key)));
    return this.attachmentNames.has(name) || this.scratch.hasAttachment(name);
  }

  /**
   * Finishes the drawing: subsets the revision's own fonts, copies into the revision what the pages refer to (the
   * shared subsets replacing their stand-ins, put in the document once per job) and the scratch's attachments.
   */
  finish(): void {
    if (this.scratch.fonts.hasEmbeddedFonts) this.scratch.fonts.finalize(true);
    for (const run of this.pending.splice(0)) run();
    this.mergeAttachments();
  }

  /** References to a scratch object become `to` (an object of the document) when copied. Before finish(). */
  substitute(from: PdfRef, to: Ref): void {
    if (this.importer) throw new Error('The drawing was copied already.');
    this.substitutes.set(from.objectNumber, to);
  }

  /** A scratch object (and what it refers to) copied into the revision. After finish(). */
  copy(ref: PdfRef): Ref {
    return this.imported().ref(ref);
  }

  private imported(): Import {
    if (!this.importer) {
      for (const [key, standIn] of this.fonts.used())
        this.substitutes.set(standIn.objectNumber, documentFont(this.revision, key));
      this.importer = new Import(this.scratch, this.revision, this.substitutes);
    }
    return this.importer;
  }

  /** The scratch's EmbeddedFiles entries added to the document's tree (one flat node, sorted by name). */
  private mergeAttachments(): void {
    if (!this.scratch.getAttachments().size) return;
    const names = this.scratch.getCatalog().get('Names', (r) => this.scratch.getObject(r)) as PdfDict | undefined;
    const tree = names?.get('EmbeddedFiles', (r) => this.scratch.getObject(r)) as PdfDict | undefined;
    const flat = tree?.get('Names', (r) => this.scratch.getObject(r));
    if (!flat || flat.type !== 'array') throw new Error('The attachments were not written as a flat name tree.');
    const added: [Str, PdfValue][] = [];
    const items = [...(flat as Iterable<PdfObject>)];
    const importer = this.imported();
    for (let i = 0; i + 1 < items.length; i += 2) {
      const key = importer.value(items[i]);
      const value = importer.value(items[i + 1]);
      if (!(key instanceof Str) || value instanceof PdfStreamValue) throw new Error('Unexpected attachment entry.');
      added.push([key, value]);
    }
    const entries = [...embeddedFileNames(this.revision), ...added].sort(([a], [b]) =>
      Buffer.compare(a.bytes, b.bytes),
    );
    const node = this.revision.add(new Map([['Names', entries.flat()]]));
    const catalog = this.revision.catalog();
    const own = catalog.get('Names');
    if (own instanceof Ref && isDict(this.revision.value(own.num)))
      this.revision.edit(own.num).set('EmbeddedFiles', node);
    else if (isDict(own)) own.set('EmbeddedFiles', node);
    else catalog.set('Names', new Map([['EmbeddedFiles', node]]));
  }
}

/** Where face `key`'s shared subset is in the document: put in by this revision unless an earlier one of the job did. */
function documentFont(revision: Revision, key: FontKey): Ref {
  const known = revision.structure.fonts.get(key) ?? revision.fontsAdded.get(key);
  if (known) return known;
  const shared: SharedFont = sharedFont(key);
  const ref = new Import(shared.source, revision).ref(shared.ref);
  revision.fontsAdded.set(key, ref);
  return ref;
}

const MAX_NAME_TREE_NODES = 10_000;

/** Every (name, file specification) of the document's EmbeddedFiles name tree, as the revision sees it. */
export function embeddedFileNames(revision: Revision): [Str, PdfValue][] {
  const catalog = revision.value(revision.structure.trailer.root.num);
  const names = isDict(catalog) ? revision.entry(catalog, 'Names') : undefined;
  const root = isDict(names) ? names.get('EmbeddedFiles') : undefined;
  const found: [Str, PdfValue][] = [];
  const stack: PdfValue[] = root === undefined ? [] : [root];
  const seen = new Set<number>();
  for (let visits = 0; stack.length && visits < MAX_NAME_TREE_NODES; visits++) {
    const item = stack.pop()!;
    if (item instanceof Ref) {
      if (seen.has(item.num)) continue;
      seen.add(item.num);
    }
    const node = revision.resolve(item);
    if (!isDict(node)) continue;
    const pairs = revision.entry(node, 'Names');
    if (Array.isArray(pairs))
      for (let i = 0; i + 1 < pairs.length; i += 2)
        if (pairs[i] instanceof Str) found.push([pairs[i] as Str, pairs[i + 1]]);
    const kids = revision.entry(node, 'Kids');
    if (Array.isArray(kids)) stack.push(...kids);
  }
  return found;
}
