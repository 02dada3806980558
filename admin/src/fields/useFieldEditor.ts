import type { FieldKind, ShownPageSize } from '@esign/contract';
import { useRef, useState } from 'react';
import { pointOnLayer } from './FieldLayer';
import { copiesToEveryPage, fieldProblems, newField } from './model';
import type { PlacedField } from './model';

export type FieldsUpdate = (update: (fields: PlacedField[]) => PlacedField[]) => void;

/**
 * The field tools' state shared by /upload and the template editor: which field is selected, and the edits (place a
 * kind on the page shown, change, remove, copy to every page) applied to the caller's list through `update` (which
 * may count them as unsaved changes). `signer` is whose fields are placed now (the step's recipient, the template's
 * role); `layer` is the element laid over the page shown, where a dragged kind is dropped.
 */
export function useFieldEditor({
  fields,
  update,
  signer,
  page,
  totalPages,
  sizeOf,
}: {
  fields: readonly PlacedField[];
  update: FieldsUpdate;
  signer: number;
  page: number;
  totalPages: number;
  sizeOf: (page: number) => ShownPageSize | null;
}) {
  const layer = useRef<HTMLDivElement>(null);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const selected = fields.find((field) => field.id === selectedId && field.signer === signer) ?? null;

  const focusSoon = (id: string) =>
    // Once drawn: the new field takes the keyboard (arrows, Delete) at once.
    requestAnimationFrame(() =>
      layer.current?.querySelector<HTMLElement>(`[data-field-id="${CSS.escape(id)}"]`)?.focus({ preventScroll: true }),
    );

  return {
    layer,
    selected,
    selectedId: selected?.id ?? null,
    notice,
    select: (id: string | null) => {
      setSelectedId(id);
      setNotice(null);
    },
    /** A click on a kind (no point: near the page's top-left) or a drop on the page (the screen point). */
    place: (kind: FieldKind, client?: { x: number; y: number }) => {
      const size = sizeOf(page);
      if (!size) return;
      let at: { x: number; y: number } | undefined;
      if (client) {
        const element = layer.current;
        const scale = element ? element.getBoundingClientRect().height / size.height : 0;
        const point = pointOnLayer(element, client, scale);
        if (!point) return; // released off the page: nothing placed
        at = point;
      }
      const field = newField(kind, signer, page, size, fields, at);
      update((list) => [...list, field]);
      setSelectedId(field.id);
      setNotice(null);
      focusSoon(field.id);
    },
    change: (field: PlacedField) => update((list) => list.map((f) => (f.id === field.id ? field : f))),
    remove: (id: string) => {
      update((list) => list.filter((f) => f.id !== id));
      setSelectedId((current) => (current === id ? null : current));
      setNotice(null);
    },
    copyToEveryPage: () => {
      if (!selected) return 0;
      const copies = copiesToEveryPage(selected, totalPages, sizeOf, fields);
      if (copies.length) update((list) => [...list, ...copies]);
      return copies.length;
    },
    setNotice,
    problemsOf: (field: PlacedField) => fieldProblems(field, sizeOf, totalPages),
  };
}

export type FieldEditor = ReturnType<typeof useFieldEditor>;
