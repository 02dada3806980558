import {
  isDict,
  PdfRawObject,
  PdfRef,
  PdfStreamValue,
  writeUpdate,
  type PdfDict,
  type PdfObjectBody,
  type PdfValue,
  type WrittenUpdate,
} from '@esign/pdf-syntax';
import type { FontKey } from '../fonts';
import { shownFrom, type PageShown } from '../page-content';
import {
  entryOf,
  inheritedOf,
  isStreamObject,
  objectOf,
  resolved,
  type SigningDocument,
  type Structure,
} from './document';

/*
 * One revision of a document, built as an incremental update (issue 23): the objects it adds and the new versions of
 * the few it changes (the pages it draws on, their resources, the catalog, the form), written after the document's
 * bytes by @esign/pdf-syntax's writer. Nothing else of the document is read or written: a signer's revision on a
 * 352-page book is its pages' dictionaries and a handful of shared objects, not a re-serialisation of the book.
 */

/** A deep copy of a value: dictionaries and arrays are new, names, references and strings are shared (never changed). */
export function copyValue<T extends PdfValue>(value: T): T {
  if (Array.isArray(value)) return value.map((item: PdfValue) => copyValue(item)) as T;
  if (isDict(value)) {
    const copy: PdfDict = new Map();
    for (const [key, item] of value as PdfDict) copy.set(key, copyValue(item));
    return copy as T;
  }
  return value;
}

export class Revision {
  readonly structure: Structure;
  private next: number;
  private readonly out = new Map<number, PdfObjectBody>();
  private readonly edits = new Map<number, PdfDict | PdfValue[]>();
  private isolation: { open: PdfRef; close: PdfRef } | null = null;
  /** Dictionaries this revision made (its copies): changed in place; any other is copied before it is changed. */
  private readonly mine = new WeakSet<PdfDict>();
  private readonly addedPages: PdfRef[] = [];
  /** Shared font subsets this revision puts in the document (the next version knows where they are). */
  readonly fontsAdded = new Map<FontKey, PdfRef>();

  constructor(readonly document: SigningDocument) {
    this.structure = document.structure();
    this.next = this.structure.trailer.size;
  }

  get pageCount(): number {
    return this.structure.pages.length;
  }

  /** Page `pageNo` (1-based) of the document as it was before this revision. */
  pageRef(pageNo: number): PdfRef {
    const ref = this.structure.pages[pageNo - 1];
    if (!ref) throw new RangeError(`The document has no page ${pageNo}.`);
    return ref;
  }

  allocate(): PdfRef {
    return new PdfRef(this.next++, 0);
  }

  /** A new object. */
  add(body: PdfObjectBody): PdfRef {
    const ref = this.allocate();
    this.out.set(ref.num, body);
    return ref;
  }

  /** The body of an object this revision allocated (or a new version of an existing one). */
  set(ref: PdfRef, body: PdfObjectBody): void {
    this.out.set(ref.num, body);
    this.edits.delete(ref.num);
  }

  /** The current version of object `num`: this revision's, else the document's. */
  value(num: number): PdfValue | undefined {
    const mine = this.out.get(num);
    if (mine instanceof PdfStreamValue) return mine.dict;
    if (mine instanceof PdfRawObject) return undefined;
    if (mine !== undefined) return mine;
    return objectOf(this.structure, num);
  }

  resolve(value: PdfValue | undefined): PdfValue | undefined {
    let current = value;
    for (let i = 0; current instanceof PdfRef && i < 16; i++) current = this.value(current.num);
    return current instanceof PdfRef ? undefined : current;
  }

  /** A dictionary object changed by this revision: a copy made on first edit, written as its new version. */
  edit(num: number): PdfDict {
    return this.editDict(num, copyValue);
  }

  private editDict(num: number, copy: (dict: PdfDict) => PdfDict): PdfDict {
    const known = this.edits.get(num);
    if (known && isDict(known)) return known;
    const current = this.value(num);
    if (!isDict(current)) throw new Error(`Object ${num} is not a dictionary.`);
    if (this.out.get(num) instanceof PdfStreamValue || (!this.out.has(num) && isStreamObject(this.structure, num)))
      throw new Error(`Object ${num} is a stream.`);
    const made = copy(current);
    this.edits.set(num, made);
    this.out.set(num, made);
    return made;
  }

  /** An array object changed by this revision (a copy made on first edit). */
  editArray(num: number): PdfValue[] {
    const known = this.edits.get(num);
    if (Array.isArray(known)) return known;
    const current = this.value(num);
    if (!Array.isArray(current)) throw new Error(`Object ${num} is not an array.`);
    const copy = copyValue(current);
    this.edits.set(num, copy);
    this.out.set(num, copy);
    return copy;
  }

  /** The catalog, to change. */
  catalog(): PdfDict {
    return this.edit(this.structure.trailer.root.num);
  }

  /**
   * Page `pageNo`'s dictionary, to change: a shallow copy (a 352-page book's pages are copied by every signer's
   * revision). Its entries are the earlier version's values: an entry is replaced, never changed in place, except
   * through ownEntry(), which copies what it changes.
   */
  page(pageNo: number): PdfDict {
    return this.editDict(this.pageRef(pageNo).num, (dict) => {
      const copy: PdfDict = new Map(dict);
      this.mine.add(copy);
      return copy;
    });
  }

  /** A page's direct dictionary entry (its /Resources, their /XObject) as this revision's own copy, to change. */
  private ownEntry(holder: PdfDict, key: string, inherited?: PdfValue): PdfDict {
    const current = holder.get(key) ?? inherited;
    if (isDict(current) && this.mine.has(current)) return current;
    const copy: PdfDict = isDict(current) ? new Map(current) : new Map();
    this.mine.add(copy);
    holder.set(key, copy);
    return copy;
  }

  /** How a viewer shows page `pageNo` (its own or inherited boxes and rotation). */
  shown(pageNo: number): PageShown {
    const { num } = this.pageRef(pageNo);
    // A page of the file the job started from shows as it did (see Base.shown); an appended page is asked each time.
    const known = this.structure.base.entries.has(num) ? this.structure.base.shown : null;
    let shown = known?.get(num);
    if (!shown) {
      shown = this.shownNow(pageNo);
      known?.set(num, shown);
    }
    return shown;
  }

  private shownNow(pageNo: number): PageShown {
    const page = this.value(this.pageRef(pageNo).num);
    if (!isDict(page)) throw new Error(`Page ${pageNo} is not a dictionary.`);
    const numbers = (key: string) => {
      const array = inheritedOf(this.structure, page, key);
      if (!Array.isArray(array)) return null;
      const values = array.map((item) => resolved(this.structure, item));
      return values.every((v) => typeof v === 'number') ? (values as number[]) : null;
    };
    const rotate = inheritedOf(this.structure, page, 'Rotate');
    return shownFrom(numbers('MediaBox'), numbers('CropBox'), typeof rotate === 'number' ? rotate : 0);
  }

  /** The `q` and `Q` streams of this revision, shared by every page it draws on. */
  private isolationStreams(): { open: PdfRef; close: PdfRef } {
    this.isolation ??= {
      open: this.add(new PdfStreamValue(new Map(), Buffer.from('q\n', 'latin1'))),
      close: this.add(new PdfStreamValue(new Map(), Buffer.from('\nQ\n', 'latin1'))),
    };
    return this.isolation;
  }

  /** A number no earlier object of this document has: this revision's, for unique resource names. */
  get uniqueNumber(): number {
    return this.isolationStreams().open.num;
  }

  /**
   * Appends a content stream to the page, after its own content put between `q` and `Q` (a page may leave its
   * graphics state changed: a matrix, a clip, a colour). A page this revision drew on already is isolated once.
   */
  appendContent(pageNo: number, stream: PdfRef): void {
    const { open, close } = this.isolationStreams();
    const page = this.page(pageNo);
    const own = page.get('Contents');
    const target = own instanceof PdfRef ? this.value(own.num) : own;
    const existing: PdfValue[] = Array.isArray(target) ? [...target] : own !== undefined && own !== null ? [own] : [];
    const is = (item: PdfValue | undefined, ref: PdfRef) => item instanceof PdfRef && item.num === ref.num;
    const isolated = is(existing[0], open) && existing.some((item) => is(item, close));
    page.set('Contents', isolated ? [...existing, stream] : [open, ...existing, close, stream]);
  }

  /**
   * Names a form XObject in the page's resources. A page without its own /Resources inherits its parent's: those are
   * copied onto the page first (else the page would lose its fonts). Resources or an XObject dictionary shared with
   * other pages gain the name in their one new version (names are unique to the revision).
   */
  addXObject(pageNo: number, name: string, form: PdfRef): void {
    const page = this.page(pageNo);
    const own = page.get('Resources');
    let resources: PdfDict;
    if (own instanceof PdfRef && isDict(this.value(own.num))) resources = this.edit(own.num);
    else if (isDict(own)) resources = this.ownEntry(page, 'Resources');
    else {
      const inherited = inheritedOf(this.structure, page, 'Resources');
      resources = this.ownEntry(page, 'Resources', inherited);
    }
    const xobjects = resources.get('XObject');
    if (xobjects instanceof PdfRef && isDict(this.value(xobjects.num))) this.edit(xobjects.num).set(name, form);
    else this.ownEntry(resources, 'XObject').set(name, form);
  }

  /** Adds an annotation (a widget) to the page's /Annots. */
  addAnnotation(pageNo: number, annotation: PdfRef): void {
    const page = this.page(pageNo);
    const own = this.resolve(page.get('Annots'));
    page.set('Annots', [...(Array.isArray(own) ? own : []), annotation]);
  }

  /** Appends pages (dictionaries this revision wrote, their /Parent the root of the page tree) after the last page. */
  appendPages(pages: PdfRef[]): void {
    const catalog = this.value(this.structure.trailer.root.num);
    const root = isDict(catalog) ? catalog.get('Pages') : undefined;
    if (!(root instanceof PdfRef)) throw new Error('The catalog names no page tree.');
    const node = this.edit(root.num);
    const kids = this.resolve(node.get('Kids'));
    node.set('Kids', [...(Array.isArray(kids) ? kids : []), ...pages]);
    const count = this.resolve(node.get('Count'));
    node.set('Count', (typeof count === 'number' ? count : 0) + pages.length);
    this.addedPages.push(...pages);
  }

  /** The root of the page tree. */
  pageTreeRoot(): PdfRef {
    const catalog = this.value(this.structure.trailer.root.num);
    const root = isDict(catalog) ? catalog.get('Pages') : undefined;
    if (!(root instanceof PdfRef)) throw new Error('The catalog names no page tree.');
    return root;
  }

  /** An entry of a dictionary, followed through references in this revision. */
  entry(dict: PdfDict, key: string): PdfValue | undefined {
    return this.resolve(dict.get(key));
  }

  /** An entry of the document as it was (unchanged by this revision). */
  original(dict: PdfDict, key: string): PdfValue | undefined {
    return entryOf(this.structure, dict, key);
  }

  /** Writes the revision: its bytes to append, and the structure of the document they make. */
  write(): { update: WrittenUpdate; structure: (read: Map<number, PdfValue>) => Structure } {
    const { document, structure } = this;
    const last = document.lastByte;
    const objects = new Map<number, { gen: number; body: PdfObjectBody }>();
    for (const [num, body] of this.out) objects.set(num, { gen: this.generationOf(num), body });
    const update = writeUpdate(
      document.length,
      last === 0x0a || last === 0x0d,
      objects,
      { ...structure.trailer, size: this.next },
      structure.trailer.xrefStream,
    );
    return {
      update,
      // `read`: the raw objects (signature dictionaries) as they read once their bytes are final.
      structure: (read) => {
        const written = new Map(structure.written);
        for (const [num, body] of this.out) {
          if (body instanceof PdfRawObject) {
            const value = read.get(num);
            if (value !== undefined) written.set(num, value);
            else written.delete(num);
          } else written.set(num, body);
        }
        return {
          base: structure.base,
          written,
          trailer: { ...structure.trailer, size: update.size, prev: update.startxref },
          pages: [...structure.pages, ...this.addedPages],
          fonts: new Map([...structure.fonts, ...this.fontsAdded]),
        };
      },
    };
  }

  /** A new version of an object keeps its generation; new objects are generation 0. */
  private generationOf(num: number): number {
    if (num >= this.structure.trailer.size) return 0;
    const entry = this.structure.base.entries.get(num);
    return entry?.type === 1 ? entry.gen : 0;
  }
}
