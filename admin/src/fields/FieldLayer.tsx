import type { ShownPageSize } from '@esign/contract';
import { Box } from '@mui/material';
import { alpha } from '@mui/material/styles';
import { forwardRef, useRef, useState } from 'react';
import type { KeyboardEvent, PointerEvent } from 'react';
import { moveFieldBox, resizeFieldBox, shownLabel } from './model';
import type { FieldBox, PlacedField } from './model';
import { useText } from '../i18n/useText';

const ARROWS: Record<string, [number, number]> = {
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
  ArrowUp: [0, -1],
  ArrowDown: [0, 1],
};

interface Gesture {
  pointerId: number;
  startX: number;
  startY: number;
  origin: FieldBox;
  resize: boolean;
}

export interface FieldLayerProps {
  /** The fields on this page (every signer's: the others' are shown faded). */
  fields: readonly PlacedField[];
  /** The page's size in points (as displayed). */
  page: ShownPageSize;
  /** CSS pixels per point of the page as shown. */
  scale: number;
  /** Whether a field can be moved, resized and edited here (the current signer's, unless the screen is busy). */
  isActive: (field: PlacedField) => boolean;
  colourOf: (field: PlacedField) => string;
  /** Whose field it is, for its accessible name. */
  ownerOf: (field: PlacedField) => string;
  selectedId: string | null;
  onSelect: (id: string | null) => void;
  onChange: (field: PlacedField) => void;
  onRemove: (id: string) => void;
}

/**
 * Laid over a PdfPageView page: the fields placed on it. The active ones follow the pointer (move: drag the box;
 * resize: drag its bottom-right handle; captured, so a fast drag never loses it) and the keyboard once focused (Tab
 * reaches them; arrows move by a point, Shift+arrows by 10; Delete or Backspace removes), always inside the page.
 * The layer itself lets the pointer through to what is under it (the template editor's drawing surface); its element
 * is where the palette's kinds are dropped.
 */
const FieldLayer = forwardRef<HTMLDivElement, FieldLayerProps>(function FieldLayer(
  { fields, page, scale, isActive, colourOf, ownerOf, selectedId, onSelect, onChange, onRemove },
  ref,
) {
  return (
    <Box ref={ref} data-testid="field-layer" sx={{ position: 'absolute', inset: 0, pointerEvents: 'none', zIndex: 3 }}>
      {fields.map((field) => (
        <FieldBoxView
          key={field.id}
          field={field}
          page={page}
          scale={scale}
          active={isActive(field)}
          colour={colourOf(field)}
          owner={ownerOf(field)}
          selected={selectedId === field.id}
          onSelect={onSelect}
          onChange={onChange}
          onRemove={onRemove}
        />
      ))}
    </Box>
  );
});

const FieldBoxView = ({
  field,
  page,
  scale,
  active,
  colour,
  owner,
  selected,
  onSelect,
  onChange,
  onRemove,
}: {
  field: PlacedField;
  page: ShownPageSize;
  scale: number;
  active: boolean;
  colour: string;
  owner: string;
  selected: boolean;
  onSelect: (id: string | null) => void;
  onChange: (field: PlacedField) => void;
  onRemove: (id: string) => void;
}) => {
  const t = useText();
  const gesture = useRef<Gesture | null>(null);
  const [live, setLive] = useState<FieldBox | null>(null);
  const box = live ?? field.box;
  const label = shownLabel(field);

  const follow = (event: PointerEvent<HTMLElement>): FieldBox | null => {
    const state = gesture.current;
    if (!state || state.pointerId !== event.pointerId) return null;
    const dx = (event.clientX - state.startX) / scale;
    const dy = (event.clientY - state.startY) / scale;
    return state.resize ? resizeFieldBox(state.origin, dx, dy, page) : moveFieldBox(state.origin, dx, dy, page);
  };

  const start = (event: PointerEvent<HTMLElement>, resize: boolean) => {
    if (!active || (event.pointerType === 'mouse' && event.button !== 0)) return;
    event.preventDefault();
    event.stopPropagation();
    onSelect(field.id);
    (event.currentTarget.closest('[data-testid="field-box"]') as HTMLElement | null)?.focus();
    try {
      event.currentTarget.setPointerCapture(event.pointerId);
    } catch {
      // A pointer the browser no longer tracks: the gesture still follows the events that reach the element.
    }
    gesture.current = {
      pointerId: event.pointerId,
      startX: event.clientX,
      startY: event.clientY,
      origin: field.box,
      resize,
    };
    setLive(field.box);
  };

  const move = (event: PointerEvent<HTMLElement>) => {
    const next = follow(event);
    if (next) setLive(next);
  };

  const end = (event: PointerEvent<HTMLElement>) => {
    const next = follow(event);
    if (!next) return;
    event.stopPropagation();
    gesture.current = null;
    setLive(null);
    if (next.some((v, i) => v !== field.box[i])) onChange({ ...field, box: next });
  };

  const cancel = () => {
    gesture.current = null;
    setLive(null);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (!active) return;
    const arrow = ARROWS[event.key];
    if (arrow) {
      event.preventDefault();
      const step = event.shiftKey ? 10 : 1;
      onChange({ ...field, box: moveFieldBox(field.box, arrow[0] * step, arrow[1] * step, page) });
    } else if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      onRemove(field.id);
    } else if (event.key === 'Escape') {
      onSelect(null);
    }
  };

  const gestureHandlers = {
    onPointerMove: move,
    onPointerUp: end,
    onPointerCancel: cancel,
    onLostPointerCapture: cancel,
  };

  const [x1, y1, x2, y2] = box;
  const width = (x2 - x1) * scale;
  const height = (y2 - y1) * scale;
  return (
    <Box
      data-testid="field-box"
      data-field-id={field.id}
      data-kind={field.kind}
      data-signer={field.signer}
      data-page={field.page}
      data-active={active ? 'true' : 'false'}
      data-selected={selected ? 'true' : 'false'}
      role={active ? 'button' : undefined}
      aria-label={t('console.fields.boxName', { label, owner })}
      aria-pressed={active ? selected : undefined}
      tabIndex={active ? 0 : -1}
      onFocus={() => active && onSelect(field.id)}
      onKeyDown={onKeyDown}
      onPointerDown={(event) => start(event, false)}
      {...gestureHandlers}
      sx={{
        position: 'absolute',
        left: x1 * scale,
        top: y1 * scale,
        width,
        height,
        boxSizing: 'border-box',
        display: 'flex',
        alignItems: 'center',
        overflow: 'visible',
        border: `${selected ? 2 : 1.5}px ${active ? 'solid' : 'dashed'} ${colour}`,
        borderRadius: 0.5,
        bgcolor: alpha(colour, active ? (selected ? 0.28 : 0.16) : 0.08),
        opacity: active ? 1 : 0.6,
        cursor: active ? (live ? 'grabbing' : 'grab') : 'default',
        pointerEvents: active ? 'auto' : 'none',
        touchAction: 'none',
        userSelect: 'none',
        zIndex: selected ? 3 : active ? 2 : 1,
        '&:focus-visible': { outline: `3px solid ${colour}`, outlineOffset: 2 },
      }}
    >
      {width >= 24 && height >= 10 && (
        <Box
          component="span"
          sx={{
            px: '3px',
            fontSize: Math.max(9, Math.min(12, height * 0.55)),
            lineHeight: 1.1,
            whiteSpace: 'nowrap',
            overflow: 'hidden',
            textOverflow: 'ellipsis',
            color: colour,
            fontWeight: 600,
          }}
        >
          {field.value && field.kind !== 'checkbox' ? field.value : label}
        </Box>
      )}
      {active && selected && (
        <Box
          data-testid="field-resize"
          aria-hidden
          title={t('console.fields.resize')}
          onPointerDown={(event) => start(event, true)}
          {...gestureHandlers}
          sx={{
            position: 'absolute',
            right: -5,
            bottom: -5,
            width: 10,
            height: 10,
            bgcolor: colour,
            border: '1px solid white',
            borderRadius: '2px',
            cursor: 'nwse-resize',
            touchAction: 'none',
          }}
        />
      )}
    </Box>
  );
};

export default FieldLayer;

/** A point of the screen on the layer's page, in points; null when it is not over the page. */
export function pointOnLayer(
  layer: HTMLElement | null,
  client: { x: number; y: number },
  scale: number,
): { x: number; y: number } | null {
  if (!layer || scale <= 0) return null;
  const frame = layer.getBoundingClientRect();
  const x = client.x - frame.left;
  const y = client.y - frame.top;
  if (x < 0 || y < 0 || x > frame.width || y > frame.height) return null;
  return { x: x / scale, y: y / scale };
}
