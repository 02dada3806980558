import { Limits, Messages, StaffRoutes } from '@esign/contract';
import {
  Alert,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Link,
  Radio,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TablePagination,
  TableRow,
} from '@mui/material';
import { useEffect, useState } from 'react';
import { useNotify } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import { templateErrorText } from './errors';
import TemplateSortHeader from './TemplateSortHeader';
import type { TemplateSort, TemplateView } from './types';
import { nextSort, useTemplatePage, useTemplates } from './useTemplates';

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
 * header), 5 or 10 rows a page, one row picked like a radio button (click the row or its radio), '+ Create Template',
 * Cancel and Select. Select with nothing picked shows 'Please pick a template.' for 1.5 s.
 *
 * For tests: the dialog is role dialog named Messages.pickTemplate; rows are data-testid="template-picker-row" with
 * data-template-id and data-template-name; each radio is labelled with the template's name; the buttons are labelled
 * Messages.cancelButton and Messages.selectButton; the empty text is data-testid="template-picker-empty".
 */
const TemplatePicker = ({
  open,
  onClose,
  onSelect,
  selectedId = null,
  returnTo = StaffRoutes.requestInitiate,
}: TemplatePickerProps) => {
  const notify = useNotify();
  const { templates, isPending, error } = useTemplates(open);
  const [sort, setSort] = useState<TemplateSort | null>(null);
  const [page, setPage] = useState(0);
  const [perPage, setPerPage] = useState<number>(Limits.defaultPageSize);
  const [picked, setPicked] = useState<string | null>(selectedId);
  const shown = useTemplatePage(templates, sort, page, perPage);

  // Each opening starts from the caller's choice, on the first page.
  useEffect(() => {
    if (!open) return;
    setPicked(selectedId);
    setPage(0);
  }, [open, selectedId]);

  const pickedTemplate = templates.find((template) => template.id === picked) ?? null;

  const select = () => {
    if (!pickedTemplate) {
      notify(Messages.pleasePickTemplate, { type: 'warning', autoHideDuration: Limits.templateWarningToastMs });
      return;
    }
    onSelect(pickedTemplate);
  };

  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm" aria-labelledby="template-picker-title">
      <DialogTitle id="template-picker-title">{Messages.pickTemplate}</DialogTitle>
      <DialogContent dividers>
        <Link
          component={RouterLink}
          to={createTemplateHref(returnTo)}
          underline="hover"
          sx={{ display: 'inline-block', mb: 1.5, fontWeight: 600 }}
        >
          {Messages.createTemplate}
        </Link>
        {error ? (
          <Alert severity="error" sx={{ mb: 1 }}>
            {templateErrorText(error)}
          </Alert>
        ) : null}
        <TableContainer>
          <Table size="small" aria-label={Messages.pickTemplate}>
            <TableHead>
              <TableRow>
                <TableCell padding="checkbox" />
                <TemplateSortHeader field="template_name" sort={sort} onSort={(f) => setSort(nextSort(sort, f))}>
                  {Messages.templateNameColumn}
                </TemplateSortHeader>
                <TemplateSortHeader field="template_id" sort={sort} onSort={(f) => setSort(nextSort(sort, f))}>
                  {Messages.templateIdColumn}
                </TemplateSortHeader>
              </TableRow>
            </TableHead>
            <TableBody>
              {isPending ? (
                <TableRow>
                  <TableCell colSpan={3} align="center" sx={{ py: 3 }}>
                    <CircularProgress size={24} />
                  </TableCell>
                </TableRow>
              ) : templates.length === 0 && !error ? (
                <TableRow>
                  <TableCell
                    colSpan={3}
                    align="center"
                    data-testid="template-picker-empty"
                    sx={{ py: 3, color: 'text.secondary' }}
                  >
                    {Messages.noTemplatesAvailable}
                  </TableCell>
                </TableRow>
              ) : (
                shown.rows.map((template) => {
                  const selected = template.id === picked;
                  return (
                    <TableRow
                      key={template.id}
                      hover
                      selected={selected}
                      aria-selected={selected}
                      onClick={() => setPicked(template.id)}
                      data-testid="template-picker-row"
                      data-template-id={template.template_id}
                      data-template-name={template.template_name}
                      sx={{ cursor: 'pointer' }}
                    >
                      <TableCell padding="checkbox">
                        <Radio
                          checked={selected}
                          onChange={() => setPicked(template.id)}
                          value={template.id}
                          name="template"
                          size="small"
                          slotProps={{ input: { 'aria-label': template.template_name } }}
                        />
                      </TableCell>
                      <TableCell>{template.template_name}</TableCell>
                      <TableCell sx={{ fontFamily: 'monospace', fontSize: 13 }}>{template.template_id}</TableCell>
                    </TableRow>
                  );
                })
              )}
            </TableBody>
          </Table>
        </TableContainer>
        {templates.length > 0 && (
          <TablePagination
            component="div"
            count={templates.length}
            page={shown.page}
            rowsPerPage={perPage}
            rowsPerPageOptions={[...Limits.pageSizes]}
            onPageChange={(_, next) => setPage(next)}
            onRowsPerPageChange={(event) => {
              setPerPage(Number(event.target.value));
              setPage(0);
            }}
          />
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{Messages.cancelButton}</Button>
        <Button variant="contained" onClick={select}>
          {Messages.selectButton}
        </Button>
      </DialogActions>
    </Dialog>
  );
};

export { TemplatePicker };
export default TemplatePicker;
