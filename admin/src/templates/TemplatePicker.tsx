import { Limits, StaffRoutes } from '@esign/contract';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, Link } from '@mui/material';
import { useState } from 'react';
import { ListBase, useDataProvider, useListContext, useNotify } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import TemplateGrid from './TemplateGrid';
import type { TemplateView } from './types';
import { templateListProps } from './useTemplates';
import { useText } from '../i18n/useText';

export type { TemplateView } from './types';

export interface TemplatePickerProps {
  /** The dialog is shown while true; the templates are read again each time it opens. */
  open: boolean;
  /** Cancel, Escape or a click outside. */
  onClose: () => void;
  /** Select with a template picked. The picker does not close itself: the caller sets `open` to false. */
  onSelect: (template: TemplateView) => void;
  /** The template picked when the dialog opens (e.g. the one chosen before). */
  selectedId?: string | null;
  /** Where the editor returns after Save or Cancel ('+ Create Template'); the Initiate page by default. */
  returnTo?: string;
}

/** /templates/create?from=…, the return path kept readable (slashes are valid in a query). */
export const createTemplateHref = (returnTo: string): string =>
  `${StaffRoutes.templateCreate}?from=${encodeURIComponent(returnTo).replace(/%2F/gi, '/')}`;

/**
 * 'Pick Template': the organisation's templates in a table sortable by Template Name and Template Id (click a
 * header), searched by name, 5 or 10 rows a page (the server sorts, searches and pages: GET /api/templates), one row
 * picked like a radio button (click the row or its radio), '+ Create Template', Cancel and Select. Select with
 * nothing picked shows 'Please pick a template.' for 1.5 s.
 *
 * For tests: the dialog is role dialog named t('esign.pickTemplate'); rows are data-testid="template-picker-row" with
 * data-template-id and data-template-name; each radio is labelled with the template's name; the buttons are labelled
 * t('esign.cancelButton') and t('esign.selectButton'); the empty text is data-testid="template-picker-empty"; the search
 * box has the placeholder t('esign.searchPlaceholder').
 */
const TemplatePicker = ({ open, onClose, ...rest }: TemplatePickerProps) => (
  <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm" aria-labelledby="template-picker-title">
    {/* Mounted while open: each opening reads the templates afresh, on the first page, newest first. */}
    <ListBase<TemplateView> {...templateListProps(Limits.defaultPageSize)}>
      <PickerContent onClose={onClose} {...rest} />
    </ListBase>
  </Dialog>
);

const PickerContent = ({
  onClose,
  onSelect,
  selectedId = null,
  returnTo = StaffRoutes.requestInitiate,
}: Omit<TemplatePickerProps, 'open'>) => {
  const t = useText();
  const notify = useNotify();
  const dataProvider = useDataProvider();
  const { data: rows = [] } = useListContext<TemplateView>();
  // The row picked (its template once clicked: it may be on another page by Select); the caller's choice at first.
  const [picked, setPicked] = useState<{ id: string; template?: TemplateView } | null>(
    selectedId ? { id: selectedId } : null,
  );

  const select = async () => {
    let template = picked ? (picked.template ?? rows.find((t) => t.id === picked.id)) : undefined;
    if (picked && !template) {
      template = await dataProvider.getOne<TemplateView>('templates', { id: picked.id }).then(
        ({ data }) => data,
        () => undefined,
      );
    }
    if (!template) {
      notify(t('esign.pleasePickTemplate'), { type: 'warning', autoHideDuration: Limits.templateWarningToastMs });
      return;
    }
    onSelect(template);
  };

  return (
    <>
      <DialogTitle id="template-picker-title">{t('esign.pickTemplate')}</DialogTitle>
      <DialogContent dividers>
        <Link
          component={RouterLink}
          to={createTemplateHref(returnTo)}
          underline="hover"
          sx={{ display: 'inline-block', mb: 1.5, fontWeight: 600 }}
        >
          {t('esign.createTemplate')}
        </Link>
        <TemplateGrid
          label={t('esign.pickTemplate')}
          pick={{ pickedId: picked?.id ?? null, onPick: (template) => setPicked({ id: template.id, template }) }}
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{t('esign.cancelButton')}</Button>
        <Button variant="contained" onClick={() => void select()}>
          {t('esign.selectButton')}
        </Button>
      </DialogActions>
    </>
  );
};

export { TemplatePicker };
export default TemplatePicker;
