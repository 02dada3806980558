import { Box as MuiBox, Typography } from '@mui/material';
import { useEffect, useRef, useState } from 'react';
import type { KeyboardEvent, PointerEvent } from 'react';
import { clampBox, dragBy, pageUnits, pixelsPerUnit, toPixels } from './geometry';
import type { Box, ShownSize } from './geometry';

interface DragState {
  pointerId: number;
  startX: number;
  startY: number;
  origin: Box;
}

const ARROWS: Record<string, [number, number]> = {
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
  ArrowUp: [0, -1],
  ArrowDown: [0, 1],
};

/**
 * A signer's box over the page overlay. The active one follows the pointer (mouse, pen or touch; captured, so a fast
 * drag never loses it) and the arrow keys (Shift: 10 units), always kept inside the page, and reports the box in page
 * units when dropped. Inactive ones are shown faded and let the pointer through.
 */
const SignatureBox = ({
  box,
  shown,
  colour,
  label,
  active,
  current = active,
  order,
  onDrop,
}: {
  box: Box;
  shown: ShownSize;
  colour: string;
  label: string;
  active: boolean;
  /** The current signer's box (active unless the screen is busy). */
  current?: boolean;
  order: number;
  onDrop?: (box: Box) => void;
}) => {
  const drag = useRef<DragState | null>(null);
  const element = useRef<HTMLDivElement>(null);
  // The signer's box comes into view when it becomes the one to place (a step, a page, the page opening), scrolling
  // no more than needed (issue 18, point 15).
  useEffect(() => {
    if (current) element.current?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [current]);
  const [moving, setMoving] = useState<Box | null>(null);
  const placed = moving ?? clampBox(box, pageUnits(shown));
  const px = toPixels(placed, shown);

  const follow = (event: PointerEvent<HTMLDivElement>): Box | null => {
    const state = drag.current;
    if (!state || state.pointerId !== event.pointerId) return null;
    return dragBy(state.origin, event.clientX - state.startX, event.clientY - state.startY, shown);
  };

  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (!active || (event.pointerType === 'mouse' && event.button !== 0)) return;
    event.preventDefault();
    event.currentTarget.focus();
    try {
      event.currentTarget.setPointerCapture(event.pointerId);
    } catch {
      // A pointer the browser no longer tracks: the drag still follows the events that reach the box.
    }
    drag.current = { pointerId: event.pointerId, startX: event.clientX, startY: event.clientY, origin: placed };
    setMoving(placed);
  };

  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    const next = follow(event);
    if (next) setMoving(next);
  };

  const onPointerUp = (event: PointerEvent<HTMLDivElement>) => {
    const next = follow(event);
    if (!next) return;
    drag.current = null;
    setMoving(null);
    const moved = next.x !== box.x || next.y !== box.y;
    if (moved) onDrop?.(next);
  };

  const onPointerCancel = () => {
    drag.current = null;
    setMoving(null);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const arrow = ARROWS[event.key];
    if (!active || !arrow) return;
    event.preventDefault();
    const step = (event.shiftKey ? 10 : 1) * pixelsPerUnit(shown);
    onDrop?.(dragBy(placed, arrow[0] * step, arrow[1] * step, shown));
  };

  return (
    <MuiBox
      ref={element}
      data-testid="signature-box"
      data-order={order}
      data-active={active ? 'true' : 'false'}
      role={active ? 'button' : undefined}
      aria-label={label}
      tabIndex={active ? 0 : -1}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerCancel}
      onLostPointerCapture={onPointerCancel}
      onKeyDown={onKeyDown}
      sx={{
        position: 'absolute',
        left: px.x,
        top: px.y,
        width: px.width,
        height: px.height,
        boxSizing: 'border-box',
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        px: 0.5,
        border: `2px ${active ? 'solid' : 'dashed'} ${colour}`,
        borderRadius: 1,
        // A tint of the signer's colour over white, so the name reads on any page.
        background: `linear-gradient(${colour}${active ? '29' : '14'}, ${colour}${active ? '29' : '14'}), rgba(255, 255, 255, ${active ? 0.96 : 0.8})`,
        opacity: active ? 1 : 0.6,
        cursor: active ? (moving ? 'grabbing' : 'grab') : 'default',
        pointerEvents: active ? 'auto' : 'none',
        touchAction: 'none',
        userSelect: 'none',
        zIndex: active ? 2 : 1,
        boxShadow: moving ? 4 : active ? 1 : 0,
        '&:focus-visible': { outline: `3px solid ${colour}`, outlineOffset: 2 },
      }}
    >
      <Typography
        component="span"
        noWrap
        sx={{ color: colour, fontWeight: 700, fontSize: Math.max(10, 14 * pixelsPerUnit(shown)), lineHeight: 1.2 }}
      >
        {label}
      </Typography>
    </MuiBox>
  );
};

export default SignatureBox;
