import { FIELD_KIND_LABELS } from '@esign/contract';
import type { FieldKind } from '@esign/contract';
import { Box, Button, Typography } from '@mui/material';
import { alpha } from '@mui/material/styles';
import { useRef, useState } from 'react';
import type { PointerEvent } from 'react';
import { useMessageText, useText } from '../i18n/useText';

/** The palette's kinds, in this order: the signature box comes first on the page already, so an extra one is last. */
export const PALETTE_KINDS: readonly FieldKind[] = [
  'initials',
  'name',
  'date',
  'text',
  'number',
  'checkbox',
  'dropdown',
  'radio',
  'attachment',
  'signature',
];

/** Pixels the pointer must travel before a press on a kind becomes a drag (less is a click). */
const DRAG_THRESHOLD_PX = 5;

interface Press {
  kind: FieldKind;
  pointerId: number;
  x: number;
  y: number;
  dragging: boolean;
}

/**
 * The kinds of field, one button each: a click adds one to the page shown (onPlace without a point), a drag drops one
 * where the pointer is released (onPlace with the screen point; the caller decides whether it is over the page).
 */
const FieldPalette = ({
  colour,
  disabled,
  onPlace,
}: {
  colour: string;
  disabled?: boolean;
  onPlace: (kind: FieldKind, client?: { x: number; y: number }) => void;
}) => {
  const t = useText();
  const messageText = useMessageText();
  const press = useRef<Press | null>(null);
  const [ghost, setGhost] = useState<{ kind: FieldKind; x: number; y: number } | null>(null);

  const down = (kind: FieldKind) => (event: PointerEvent<HTMLButtonElement>) => {
    if (disabled || (event.pointerType === 'mouse' && event.button !== 0)) return;
    try {
      event.currentTarget.setPointerCapture(event.pointerId);
    } catch {
      // Not tracked any more: the click still works.
    }
    press.current = { kind, pointerId: event.pointerId, x: event.clientX, y: event.clientY, dragging: false };
  };
  const move = (event: PointerEvent<HTMLButtonElement>) => {
    const state = press.current;
    if (!state || state.pointerId !== event.pointerId) return;
    if (!state.dragging && Math.hypot(event.clientX - state.x, event.clientY - state.y) < DRAG_THRESHOLD_PX) return;
    state.dragging = true;
    setGhost({ kind: state.kind, x: event.clientX, y: event.clientY });
  };
  const up = (event: PointerEvent<HTMLButtonElement>) => {
    const state = press.current;
    if (!state || state.pointerId !== event.pointerId) return;
    press.current = null;
    setGhost(null);
    if (!state.dragging) return;
    event.currentTarget.dataset.dragged = 'true';
    onPlace(state.kind, { x: event.clientX, y: event.clientY });
  };
  const cancel = () => {
    press.current = null;
    setGhost(null);
  };

  return (
    <Box data-testid="field-palette">
      <Typography variant="subtitle2" component="h3" sx={{ fontWeight: 700 }}>
        {t('console.fields.paletteHeading')}
      </Typography>
      <Typography variant="caption" color="text.secondary" component="p" sx={{ mb: 1 }}>
        {t('console.fields.paletteHint')}
      </Typography>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.75 }}>
        {PALETTE_KINDS.map((kind) => (
          <Button
            key={kind}
            size="small"
            variant="outlined"
            disabled={disabled}
            data-testid="field-kind"
            data-kind={kind}
            aria-label={t('console.fields.addKind', { kind: messageText(FIELD_KIND_LABELS[kind]) })}
            onPointerDown={down(kind)}
            onPointerMove={move}
            onPointerUp={up}
            onPointerCancel={cancel}
            // A click that was a drag placed its field on release already.
            onClick={(event) => {
              if (!ghostWasDrag(event.currentTarget)) onPlace(kind);
            }}
            sx={{
              textTransform: 'none',
              borderColor: alpha(colour, 0.6),
              color: colour,
              touchAction: 'none',
              '&:hover': { borderColor: colour, bgcolor: alpha(colour, 0.08) },
            }}
          >
            {messageText(FIELD_KIND_LABELS[kind])}
          </Button>
        ))}
      </Box>
      {ghost && (
        <Box
          aria-hidden
          sx={{
            position: 'fixed',
            left: ghost.x + 8,
            top: ghost.y + 8,
            px: 1,
            py: 0.25,
            borderRadius: 1,
            fontSize: 12,
            bgcolor: alpha(colour, 0.9),
            color: 'common.white',
            pointerEvents: 'none',
            zIndex: 2000,
          }}
        >
          {messageText(FIELD_KIND_LABELS[ghost.kind])}
        </Box>
      )}
    </Box>
  );
};

/**
 * Whether the button's last press was a drag. The pointer-up handler clears the press before the click event comes,
 * so it leaves a mark on the element for the click to read (and clears it).
 */
function ghostWasDrag(element: HTMLElement): boolean {
  const dragged = element.dataset.dragged === 'true';
  delete element.dataset.dragged;
  return dragged;
}

export default FieldPalette;
