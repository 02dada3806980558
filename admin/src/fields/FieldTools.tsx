import type { ShownPageSize } from '@esign/contract';
import { Box, Divider, Paper, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import FieldLayer from './FieldLayer';
import FieldPalette from './FieldPalette';
import FieldPanel from './FieldPanel';
import type { PlacedField } from './model';
import type { FieldEditor } from './useFieldEditor';
import { useText } from '../i18n/useText';

/**
 * The side of the page: whom the fields are for (and, in the template editor, the role picker: `before`), the
 * palette, and the selected field's panel.
 */
export const FieldTools = ({
  editor,
  heading,
  colour,
  disabled,
  before,
  sticky = true,
}: {
  editor: FieldEditor;
  heading: string;
  colour: string;
  disabled?: boolean;
  before?: ReactNode;
  /** Kept in view while the page scrolls (beside a tall page). */
  sticky?: boolean;
}) => {
  const t = useText();
  const { selected } = editor;
  return (
    <Paper
      variant="outlined"
      sx={{ p: 2, ...(sticky ? { position: 'sticky', top: 72 } : {}) }}
      data-testid="field-tools"
    >
      <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 700, mb: 1 }} data-testid="field-tools-heading">
        {heading}
      </Typography>
      {before}
      <FieldPalette colour={colour} disabled={disabled} onPlace={editor.place} />
      <Divider sx={{ my: 1.5 }} />
      {selected ? (
        <FieldPanel
          key={selected.id}
          field={selected}
          colour={colour}
          problems={editor.problemsOf(selected)}
          disabled={disabled}
          onChange={editor.change}
          onRemove={() => editor.remove(selected.id)}
          onCopyToEveryPage={() => {
            const count = editor.copyToEveryPage();
            editor.setNotice(
              count ? t('console.fields.copied', { smart_count: count }) : t('console.fields.copiedNone'),
            );
          }}
        />
      ) : (
        <Typography variant="body2" color="text.secondary">
          {t('console.fields.noFieldSelected')}
        </Typography>
      )}
      {editor.notice && (
        <Box role="status" data-testid="field-notice" sx={{ mt: 1, fontSize: 13, color: 'success.dark' }}>
          {editor.notice}
        </Box>
      )}
    </Paper>
  );
};

/** The layer of the page shown: its fields (all signers'; only `signer`'s are active), drawn at the page's scale. */
export const FieldPageLayer = ({
  editor,
  fields,
  page,
  size,
  shownHeight,
  signer,
  disabled,
  colourOf,
  ownerOf,
}: {
  editor: FieldEditor;
  fields: readonly PlacedField[];
  page: number;
  /** The page in points; null until it is read. */
  size: ShownPageSize | null;
  /** Its height on screen, in CSS pixels. */
  shownHeight: number;
  signer: number;
  disabled?: boolean;
  colourOf: (field: PlacedField) => string;
  ownerOf: (field: PlacedField) => string;
}) => {
  if (!size) return null;
  return (
    <FieldLayer
      ref={editor.layer}
      fields={fields.filter((field) => field.page === page)}
      page={size}
      scale={shownHeight / size.height}
      isActive={(field) => !disabled && field.signer === signer}
      colourOf={colourOf}
      ownerOf={ownerOf}
      selectedId={editor.selectedId}
      onSelect={editor.select}
      onChange={editor.change}
      onRemove={editor.remove}
    />
  );
};
