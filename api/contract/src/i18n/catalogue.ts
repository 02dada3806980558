/**
 * The shape every language's catalogue has (issue 22): the English catalogue's sections and keys, each a text. A
 * catalogue that misses a key or has one more does not typecheck; api/test/i18n-catalogues.test.ts also checks that
 * each text keeps exactly its English `{placeholders}`.
 */
import type { en } from './en';

type English = typeof en;
export type CatalogueSection = keyof English;
export type Catalogue = { readonly [S in CatalogueSection]: { readonly [K in keyof English[S]]: string } };

/** 'section.key' of every text: what the signer app's `t()` takes. */
export type TextKey = { [S in CatalogueSection]: `${S}.${keyof English[S] & string}` }[CatalogueSection];

/** The values a text's `{placeholders}` are filled with. */
export type TextParams = Record<string, string | number>;

/** Fills a text's `{name}` marks; a mark without a value stays as it is. */
export function fillText(text: string, params: TextParams = {}): string {
  return text.replace(/\{(\w+)\}/g, (mark, name: string) => (name in params ? String(params[name]) : mark));
}

/** The text of `key` in `catalogue`, its placeholders filled. */
export function textOf(catalogue: Catalogue, key: TextKey, params?: TextParams): string {
  const dot = key.indexOf('.');
  const section = catalogue[key.slice(0, dot) as CatalogueSection] as Record<string, string>;
  return fillText(section[key.slice(dot + 1)], params);
}

/** The `{placeholders}` of a text, sorted (each once). */
export function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort();
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A text as a pattern that matches it with any values in its placeholders (their names, in order). */
const patterns = new Map<string, { re: RegExp; names: string[] }>();
function patternOf(text: string): { re: RegExp; names: string[] } {
  const known = patterns.get(text);
  if (known) return known;
  const names: string[] = [];
  const source = text
    .split(/(\{\w+\})/)
    .map((part) => {
      const mark = /^\{(\w+)\}$/.exec(part);
      if (!mark) return escapeRegExp(part);
      names.push(mark[1]);
      return '([\\s\\S]*?)';
    })
    .join('');
  const made = { re: new RegExp(`^${source}$`), names };
  patterns.set(text, made);
  return made;
}

/** The sections whose English texts come back from the API or the contract's checks as they are. */
const KNOWN_SECTIONS: readonly CatalogueSection[] = ['server', 'messages', 'fields'];

/**
 * Turns a text the API or a contract check wrote in English (a refusal's message, a field's check) into `target`'s
 * words: the first English text of the known sections it matches (values in its placeholders taken as they were, a
 * field kind's English name given in `target`'s words), else the text itself (a remark, a name, a text the catalogue
 * does not know).
 */
export function translateKnown(english: Catalogue, target: Catalogue, text: string): string {
  if (english === target || !text) return text;
  const kindNames = new Map<string, string>();
  for (const [key, value] of Object.entries(english.fields))
    if (key.startsWith('kind')) kindNames.set(value, (target.fields as Record<string, string>)[key]);
  for (const section of KNOWN_SECTIONS) {
    const from = english[section] as Record<string, string>;
    for (const [key, value] of Object.entries(from))
      if (value === text) return (target[section] as Record<string, string>)[key];
  }
  for (const section of KNOWN_SECTIONS) {
    const from = english[section] as Record<string, string>;
    for (const [key, value] of Object.entries(from)) {
      if (!value.includes('{')) continue;
      const { re, names } = patternOf(value);
      const match = re.exec(text);
      if (!match) continue;
      const params: TextParams = {};
      names.forEach((name, i) => {
        const found = match[i + 1];
        params[name] = name === 'label' ? (kindNames.get(found) ?? found) : found;
      });
      return fillText((target[section] as Record<string, string>)[key], params);
    }
  }
  return text;
}

/**
 * What is wrong with `other` against the English catalogue: a section or key missing or extra, a text that is not a
 * non-empty text, or `{placeholders}` not exactly the English text's. Empty when it is complete.
 */
export function catalogueProblems(english: Catalogue, other: unknown): string[] {
  const problems: string[] = [];
  const sections = (other ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(sections))
    if (!(name in english)) problems.push(`section ${name} is not in the English catalogue`);
  for (const [name, texts] of Object.entries(english) as [string, Record<string, string>][]) {
    const theirs = sections[name] as Record<string, unknown> | undefined;
    if (!theirs || typeof theirs !== 'object') {
      problems.push(`section ${name} is missing`);
      continue;
    }
    for (const key of Object.keys(theirs))
      if (!(key in texts)) problems.push(`${name}.${key} is not in the English catalogue`);
    for (const [key, text] of Object.entries(texts)) {
      const value = theirs[key];
      if (typeof value !== 'string' || !value.trim()) {
        problems.push(`${name}.${key} is missing`);
        continue;
      }
      const [want, have] = [placeholdersOf(text).join(','), placeholdersOf(value).join(',')];
      if (want !== have) problems.push(`${name}.${key} has the placeholders {${have}} instead of {${want}}`);
    }
  }
  return problems;
}
