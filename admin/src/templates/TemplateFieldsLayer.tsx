import type { TemplateFieldType } from '@esign/contract';
import { Box } from '@mui/material';
import { alpha } from '@mui/material/styles';
import type { PageViewport } from 'pdfjs-dist';
import { useRef, useState } from 'react';
import type { PointerEvent } from 'react';
import { purple } from '../theme';
import { bboxToPixels } from './formFields';
import type { EditorField, PixelBox } from './formFields';

/** Outline colour of each field type; signature fields take the console's purple. */
export const FIELD_COLORS: Record<TemplateFieldType, string> = {
  'text-field': '#1565C0',
  'checkbox-field': '#2E7D32',
  'radiobutton-field': '#E65100',
  'signature-field': purple,
  'dropdown-field': '#00838F',
};

/** Smallest rectangle (CSS pixels, each side) a drag must cover to become a field; less is a click. */
const MIN_DRAG_PX = 6;

interface Drag {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

const boxOf = ({ x0, y0, x1, y1 }: Drag): PixelBox => ({
  left: Math.min(x0, x1),
  top: Math.min(y0, y1),
  width: Math.abs(x1 - x0),
  height: Math.abs(y1 - y0),
});

/**
 * Laid over a PdfPageView page: the page's form fields outlined at their place (converted from PDF user space with the
 * page's viewport) and labelled with their names and types, and a drawing surface: dragging a rectangle anywhere on
 * the page calls onDraw with it in the page's pixels.
 */
const TemplateFieldsLayer = ({
  viewport,
  fields,
  highlighted,
  onDraw,
}: {
  viewport: PageViewport;
  fields: readonly EditorField[];
  highlighted?: string | null;
  onDraw: (box: PixelBox) => void;
}) => {
  const [drag, setDrag] = useState<Drag | null>(null);
  const dragging = useRef<Drag | null>(null);

  const pointAt = (event: PointerEvent<HTMLElement>) => {
    const frame = event.currentTarget.getBoundingClientRect();
    return {
      x: Math.min(Math.max(event.clientX - frame.left, 0), frame.width),
      y: Math.min(Math.max(event.clientY - frame.top, 0), frame.height),
    };
  };
  const update = (next: Drag | null) => {
    dragging.current = next;
    setDrag(next);
  };

  const down = (event: PointerEvent<HTMLElement>) => {
    if (event.button !== 0) return;
    event.preventDefault();
    event.currentTarget.setPointerCapture(event.pointerId);
    const { x, y } = pointAt(event);
    update({ x0: x, y0: y, x1: x, y1: y });
  };
  const move = (event: PointerEvent<HTMLElement>) => {
    if (!dragging.current) return;
    const { x, y } = pointAt(event);
    update({ ...dragging.current, x1: x, y1: y });
  };
  const up = (event: PointerEvent<HTMLElement>) => {
    const current = dragging.current;
    if (!current) return;
    const { x, y } = pointAt(event);
    update(null);
    const box = boxOf({ ...current, x1: x, y1: y });
    if (box.width >= MIN_DRAG_PX && box.height >= MIN_DRAG_PX) onDraw(box);
  };

  return (
    <Box
      data-testid="template-draw-surface"
      onPointerDown={down}
      onPointerMove={move}
      onPointerUp={up}
      onPointerCancel={() => update(null)}
      sx={{ position: 'absolute', inset: 0, cursor: 'crosshair', touchAction: 'none', userSelect: 'none' }}
    >
      {fields.map((field) => {
        const box = bboxToPixels(field.bbox, viewport);
        const color = FIELD_COLORS[field.customData.type];
        const strong = highlighted === field.key;
        const narrow = box.width < 48;
        return (
          <Box
            key={field.key}
            data-testid="template-field"
            data-field-name={field.formFieldName}
            data-field-type={field.customData.type}
            sx={{
              position: 'absolute',
              left: box.left,
              top: box.top,
              width: box.width,
              height: box.height,
              boxSizing: 'border-box',
              border: `${strong ? 3 : 1.5}px solid ${color}`,
              bgcolor: alpha(color, strong ? 0.3 : 0.1),
              pointerEvents: 'none',
              zIndex: strong ? 2 : 1,
            }}
          >
            <Box
              component="span"
              sx={{
                position: 'absolute',
                top: narrow ? '50%' : 0,
                left: narrow ? 'calc(100% + 2px)' : 0,
                transform: narrow ? 'translateY(-50%)' : undefined,
                px: '2px',
                fontSize: 9,
                lineHeight: 1.2,
                whiteSpace: 'nowrap',
                color: 'common.white',
                bgcolor: alpha(color, 0.85),
                borderRadius: '2px',
              }}
            >
              {field.formFieldName} · {field.customData.type}
            </Box>
          </Box>
        );
      })}
      {drag && (
        <Box
          data-testid="template-draw-box"
          sx={{
            position: 'absolute',
            ...boxOf(drag),
            boxSizing: 'border-box',
            border: `2px dashed ${purple}`,
            bgcolor: alpha(purple, 0.15),
            pointerEvents: 'none',
            zIndex: 3,
          }}
        />
      )}
    </Box>
  );
};

export default TemplateFieldsLayer;
