import {
  FieldLimits,
  FieldMessages,
  FieldRoutes,
  Messages,
  attachmentTypeOf,
  checkFieldValue,
  countsAsRequired,
  fieldLabel,
  fill,
  isSignerEditable,
  requiredLeft,
} from '@esign/contract';
import type { FieldKind, FieldState, SignerFieldsView } from '@esign/contract';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, needsOtp, serverMessage, signerFetch } from '../api';

/** Kinds typed into a text input: saved after a pause in typing (or on leaving the input), not on every key. */
export const TYPED_KINDS: readonly FieldKind[] = ['text', 'name', 'initials', 'number'];

/** The pause after the last key before a typed value is checked and saved. */
export const SAVE_DELAY_MS = 600;

/** Fields in reading order: page by page, top to bottom, then left to right. */
const inReadingOrder = (fields: FieldState[]): FieldState[] =>
  [...fields].sort((a, b) => a.page - b.page || a.box[1] - b.box[1] || a.box[0] - b.box[0]);

export interface SignerFieldsOptions {
  orgId: string;
  refId: string;
  order: string;
  /** The signer may fill the fields now (accepted, and verified where the request needs the OTP). */
  active: boolean;
  /** Changes whenever the page reloads the request: a GET that failed is tried again then. */
  reloadKey: unknown;
  /** The signer session ended: the page asks for the OTP again. */
  onNeedsOtp: () => void;
  /** A failure that is not about one value (the network, the server). */
  onFailed: (message: string) => void;
  /** 'Next field' on the last field with every required field filled: on to the signing method. */
  onDone: () => void;
}

/** The field shown in the panel; `seq` grows on every move, so the panel focuses it and the viewer scrolls to it. */
export interface CurrentField {
  id: string;
  seq: number;
}

export interface SignerFields {
  /** The server's answer (the truth), null until it came or when the call failed. */
  view: SignerFieldsView | null;
  /** The party has fields: the guided step is shown. */
  shown: boolean;
  /** The fields in reading order. */
  fields: FieldState[];
  editable: boolean;
  /** Required fields still empty as the server has them, and all required ones. */
  left: number;
  total: number;
  current: CurrentField | null;
  currentField: FieldState | null;
  hasPrevious: boolean;
  /** What the input shows: the text being typed, else the saved value. */
  shownValue: (field: FieldState) => string;
  error: (id: string) => string | null;
  /** The field's value was just stored by the server. */
  savedNow: (id: string) => boolean;
  /** The field may be changed by this signer now. */
  canEdit: (field: FieldState) => boolean;
  select: (id: string) => void;
  next: () => void;
  previous: () => void;
  /** A new value: typed kinds wait for a pause, choices are saved at once. */
  change: (field: FieldState, raw: string) => void;
  /** Leaving a typed input (or Enter): checks and saves what was typed now; false when the value is refused. */
  commit: (field: FieldState) => boolean;
  focusChanged: (id: string | null) => void;
  upload: (field: FieldState, file: File) => void;
  remove: (field: FieldState) => void;
}

/**
 * The signer's fields (issue 21): loads them once the signer may fill them, checks each value on the spot with the
 * contract's checkFieldValue, saves it as the signer goes (POST /v1/fields/…, one call at a time, in order) and keeps
 * the server's answer as the truth; moves through the fields in reading order.
 */
export function useSignerFields(options: SignerFieldsOptions): SignerFields {
  const { orgId, refId, order, active, reloadKey } = options;
  const latest = useRef(options);
  latest.current = options;
  const path = FieldRoutes.fields(encodeURIComponent(orgId), encodeURIComponent(refId), encodeURIComponent(order));

  const [view, setViewState] = useState<SignerFieldsView | null>(null);
  const viewRef = useRef<SignerFieldsView | null>(null);
  const [drafts, setDraftsState] = useState<Record<string, string>>({});
  const draftsRef = useRef<Record<string, string>>({});
  const [errors, setErrorsState] = useState<Record<string, string>>({});
  const errorsRef = useRef<Record<string, string>>({});
  const [savedId, setSavedId] = useState<string | null>(null);
  const [current, setCurrent] = useState<CurrentField | null>(null);
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  /** Saves run one after the other, so the last answer is the server's latest state. */
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const focused = useRef<string | null>(null);
  /** Values sent and not yet answered, by field: leaving a field twice (blur, then 'Next field') sends it once. */
  const sent = useRef(new Map<string, string | null>());
  const loading = useRef(false);

  const setView = (next: SignerFieldsView) => {
    viewRef.current = next;
    setViewState(next);
  };
  const setDrafts = (change: (all: Record<string, string>) => Record<string, string>) => {
    draftsRef.current = change(draftsRef.current);
    setDraftsState(draftsRef.current);
  };
  const setError = (id: string, message: string | null) => {
    const all = errorsRef.current;
    if ((all[id] ?? null) === message) return;
    const next = { ...all };
    if (message === null) delete next[id];
    else next[id] = message;
    errorsRef.current = next;
    setErrorsState(next);
  };

  const fields = useMemo(() => inReadingOrder(view?.fields ?? []), [view]);
  const editable = view?.editable ?? false;
  /** Where 'Next field' goes: the fields the signer fills (all of them when nothing can be changed any more). */
  const stops = useMemo(() => {
    const fillable = editable ? fields.filter((f) => isSignerEditable(f)) : [];
    return fillable.length > 0 ? fillable : fields;
  }, [fields, editable]);

  /** Values as they will be once the saves under way are stored: what 'Next field' goes by. */
  const valuesSoon = (): Record<string, string | null> => {
    const values: Record<string, string | null> = {};
    for (const f of viewRef.current?.fields ?? []) {
      values[f.id] = f.value;
      const draft = draftsRef.current[f.id];
      if (draft !== undefined) {
        const checked = checkFieldValue(f, draft);
        if (checked.ok) values[f.id] = checked.value;
      }
    }
    return values;
  };

  const moveTo = useCallback((id: string) => setCurrent((c) => ({ id, seq: (c?.seq ?? 0) + 1 })), []);

  useEffect(() => {
    if (!active || viewRef.current || loading.current) return;
    loading.current = true;
    signerFetch<SignerFieldsView>(path)
      .then((answer) => {
        setView(answer);
        const sorted = inReadingOrder(answer.fields);
        const left = new Set(requiredLeft(answer.fields, valuesOf(answer.fields)).map((f) => f.id));
        const first =
          sorted.find((f) => left.has(f.id) && answer.editable && isSignerEditable(f)) ??
          sorted.find((f) => answer.editable && isSignerEditable(f)) ??
          sorted[0];
        if (first) moveTo(first.id);
      })
      .catch((error: unknown) => {
        // No fields step then (the page is as it was); signing itself is refused by the server if fields are missing.
        if (needsOtp(error)) latest.current.onNeedsOtp();
      })
      .finally(() => {
        loading.current = false;
      });
  }, [active, path, reloadKey, moveTo]);

  useEffect(() => {
    const pending = timers.current;
    return () => pending.forEach((timer) => clearTimeout(timer));
  }, []);

  /** Drops what was typed once the server holds the same value, so the input shows the server's (trimmed) text. */
  const settle = (id: string) => {
    const draft = draftsRef.current[id];
    const field = viewRef.current?.fields.find((f) => f.id === id);
    if (draft === undefined || !field || focused.current === id) return;
    const checked = checkFieldValue(field, draft);
    if (checked.ok && checked.value === field.value)
      setDrafts((all) => {
        const next = { ...all };
        delete next[id];
        return next;
      });
  };

  /** The server refused or could not be reached: its message under the field (4xx), else the page's. */
  const refused = (id: string, error: unknown) => {
    if (needsOtp(error)) latest.current.onNeedsOtp();
    else if (error instanceof ApiError && error.status >= 400 && error.status < 500 && error.body?.message)
      setError(id, error.body.message);
    else latest.current.onFailed(serverMessage(error, Messages.internalError));
  };

  const stored = (field: FieldState, answer: SignerFieldsView) => {
    setView(answer);
    const now = answer.fields.find((f) => f.id === field.id);
    if (now && now.value === null && countsAsRequired(now))
      setError(field.id, fill(FieldMessages.required, { label: fieldLabel(now) }));
    else setError(field.id, null);
    setSavedId(now?.value !== null ? field.id : null);
    settle(field.id);
  };

  const save = (field: FieldState, value: string | null) => {
    setSavedId(null);
    sent.current.set(field.id, value);
    const answered = () => {
      if (sent.current.get(field.id) === value) sent.current.delete(field.id);
    };
    queue.current = queue.current.then(() =>
      signerFetch<SignerFieldsView>(path, { body: { values: { [field.id]: value } } }).then(
        (answer) => {
          answered();
          stored(field, answer);
        },
        (error: unknown) => {
          answered();
          refused(field.id, error);
        },
      ),
    );
  };

  /** The value the server has, or will have once what was sent is stored. */
  const savedValue = (id: string) =>
    sent.current.has(id)
      ? (sent.current.get(id) ?? null)
      : (viewRef.current?.fields.find((f) => f.id === id)?.value ?? null);

  const commit = (field: FieldState): boolean => {
    const timer = timers.current.get(field.id);
    if (timer) clearTimeout(timer);
    timers.current.delete(field.id);
    const draft = draftsRef.current[field.id];
    if (draft === undefined) return errorsRef.current[field.id] === undefined;
    const checked = checkFieldValue(field, draft);
    if (!checked.ok) {
      setError(field.id, checked.message);
      return false;
    }
    if (checked.value !== savedValue(field.id)) save(field, checked.value);
    else settle(field.id);
    return true;
  };

  const change = (field: FieldState, raw: string) => {
    const checked = checkFieldValue(field, raw);
    if (TYPED_KINDS.includes(field.kind)) {
      setDrafts((all) => ({ ...all, [field.id]: raw }));
      setSavedId(null);
      // A value that became right loses its message at once; a wrong one is told after the pause (or on leaving).
      if (checked.ok) setError(field.id, null);
      const timer = timers.current.get(field.id);
      if (timer) clearTimeout(timer);
      timers.current.set(
        field.id,
        setTimeout(() => {
          timers.current.delete(field.id);
          commit(field);
        }, SAVE_DELAY_MS),
      );
      return;
    }
    if (!checked.ok) setError(field.id, checked.message);
    else save(field, checked.value);
  };

  const upload = (field: FieldState, file: File) => {
    void (async () => {
      if (file.size > FieldLimits.attachmentMaxBytes) return setError(field.id, FieldMessages.attachmentTooLarge);
      const head = new Uint8Array(await file.slice(0, 8).arrayBuffer());
      if (!attachmentTypeOf(head)) return setError(field.id, FieldMessages.attachmentType);
      const named = checkFieldValue(field, file.name);
      if (!named.ok) return setError(field.id, named.message);
      setError(field.id, null);
      setSavedId(null);
      const form = new FormData();
      form.set('file', file, file.name);
      const at = FieldRoutes.attachment(
        encodeURIComponent(orgId),
        encodeURIComponent(refId),
        encodeURIComponent(order),
        field.id,
      );
      queue.current = queue.current.then(() =>
        signerFetch<SignerFieldsView>(at, { body: form }).then(
          (answer) => stored(field, answer),
          (error: unknown) => refused(field.id, error),
        ),
      );
    })();
  };

  const remove = (field: FieldState) => {
    const at = FieldRoutes.attachment(
      encodeURIComponent(orgId),
      encodeURIComponent(refId),
      encodeURIComponent(order),
      field.id,
    );
    setSavedId(null);
    queue.current = queue.current.then(() =>
      signerFetch<SignerFieldsView>(at, { method: 'DELETE' }).then(
        (answer) => stored(field, answer),
        (error: unknown) => refused(field.id, error),
      ),
    );
  };

  const index = current ? fields.findIndex((f) => f.id === current.id) : -1;
  const currentField = index >= 0 ? fields[index] : null;
  const stopsBefore = index >= 0 ? stops.filter((f) => fields.indexOf(f) < index) : [];

  /** Leaves the field shown now: what was typed is checked and saved first. */
  const leave = () => {
    if (currentField && TYPED_KINDS.includes(currentField.kind)) commit(currentField);
  };

  const next = () => {
    leave();
    const after = stops.find((f) => fields.indexOf(f) > index);
    if (after) return moveTo(after.id);
    const empty = requiredLeft(stops, valuesSoon()).find((f) => isSignerEditable(f));
    if (empty && editable) return moveTo(empty.id);
    latest.current.onDone();
  };

  const previous = () => {
    leave();
    const before = stopsBefore[stopsBefore.length - 1];
    if (before) moveTo(before.id);
  };

  const select = (id: string) => {
    if (id !== current?.id) leave();
    moveTo(id);
  };

  const shownValue = (field: FieldState) => drafts[field.id] ?? field.value ?? '';
  const left = view ? requiredLeft(view.fields, valuesOf(view.fields)).length : 0;
  const total = view ? view.fields.filter((f) => countsAsRequired(f)).length : 0;

  return {
    view,
    shown: view !== null && view.fields.length > 0,
    fields,
    editable,
    left,
    total,
    current,
    currentField,
    hasPrevious: stopsBefore.length > 0,
    shownValue,
    error: (id) => errors[id] ?? null,
    savedNow: (id) => savedId === id,
    canEdit: (field) => editable && isSignerEditable(field),
    select,
    next,
    previous,
    change,
    commit,
    focusChanged: (id) => {
      const was = focused.current;
      focused.current = id;
      if (was && was !== id) settle(was);
    },
    upload,
    remove,
  };
}

/** The saved values by field id. */
const valuesOf = (fields: FieldState[]): Record<string, string | null> =>
  Object.fromEntries(fields.map((f) => [f.id, f.value]));
