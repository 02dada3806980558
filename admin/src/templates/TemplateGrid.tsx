import { Limits } from '@esign/contract';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutline';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import {
  Alert,
  IconButton,
  Radio,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Tooltip,
} from '@mui/material';
import { useFormatTime } from '../organisation/OrganisationContext';
import { templateErrorText } from './errors';
import { TemplatePagination, TemplateRowsOr, TemplateSearch } from './TemplateListParts';
import TemplateSortHeader from './TemplateSortHeader';
import type { TemplateView } from './types';
import { useTemplateList } from './useTemplates';
import { useText } from '../i18n/useText';

/** The picker's choice: the row picked, and what a click on a row does. */
export interface TemplatePick {
  pickedId: string | null;
  onPick: (template: TemplateView) => void;
}

/** The page's row actions: delete (after the page's confirmation) and edit. */
export interface TemplateRowActions {
  onDelete: (template: TemplateView) => void;
  onEdit: (template: TemplateView) => void;
}

/**
 * The one templates list of the console, inside a react-admin <ListBase> over GET /api/templates (the server sorts,
 * searches and pages): the search box, a table sortable by clicking a header, the pages. On /templates (`actions`)
 * every column with delete and edit; as the 'Pick Template' dialog (`pick`) a radio per row, Template Name and
 * Template Id (spec section 2), a click on a row picks it.
 *
 * For tests: rows are data-testid "template-row" (page) or "template-picker-row" (picker) with data-template-id and
 * data-template-name; the empty text is "templates-empty" or "template-picker-empty".
 */
const TemplateGrid = ({
  pick,
  actions,
  label,
}: {
  pick?: TemplatePick;
  actions?: TemplateRowActions;
  label: string;
}) => {
  const t = useText();
  const formatTime = useFormatTime();
  const { rows, isPending, error, sort, onSort, emptyText } = useTemplateList();
  const full = !pick;
  const columns = full ? 7 : 3;
  return (
    <>
      {error ? (
        <Alert severity="error" sx={{ mb: pick ? 1 : 2 }}>
          {templateErrorText(error)}
        </Alert>
      ) : null}
      <TemplateSearch />
      <TableContainer>
        <Table size="small" aria-label={label}>
          <TableHead>
            <TableRow>
              {pick && <TableCell padding="checkbox" />}
              <TemplateSortHeader field="template_name" sort={sort} onSort={onSort}>
                {t('esign.templateNameColumn')}
              </TemplateSortHeader>
              <TemplateSortHeader field="template_id" sort={sort} onSort={onSort}>
                {t('esign.templateIdColumn')}
              </TemplateSortHeader>
              {full && (
                <>
                  <TemplateSortHeader field="filename" sort={sort} onSort={onSort}>
                    {t('console.templates.fileNameColumn')}
                  </TemplateSortHeader>
                  <TemplateSortHeader field="total_pages" align="right" sort={sort} onSort={onSort}>
                    {t('console.templates.pagesColumn')}
                  </TemplateSortHeader>
                  <TemplateSortHeader field="field_count" align="right" sort={sort} onSort={onSort}>
                    {t('console.templates.fieldsColumn')}
                  </TemplateSortHeader>
                  <TemplateSortHeader field="timestamp" sort={sort} onSort={onSort}>
                    {t('console.templates.createdColumn')}
                  </TemplateSortHeader>
                  <TableCell align="right" sx={{ fontWeight: 600 }}>
                    {t('console.templates.actionsColumn')}
                  </TableCell>
                </>
              )}
            </TableRow>
          </TableHead>
          <TableBody>
            <TemplateRowsOr
              pending={isPending}
              empty={rows.length === 0 && !error}
              columns={columns}
              emptyText={emptyText}
              emptyTestId={pick ? 'template-picker-empty' : 'templates-empty'}
              compact={Boolean(pick)}
            >
              {rows.map((template) => {
                const selected = template.id === pick?.pickedId;
                return (
                  <TableRow
                    key={template.id}
                    hover
                    data-testid={pick ? 'template-picker-row' : 'template-row'}
                    data-template-id={template.template_id}
                    data-template-name={template.template_name}
                    {...(pick
                      ? {
                          selected,
                          'aria-selected': selected,
                          onClick: () => pick.onPick(template),
                          sx: { cursor: 'pointer' },
                        }
                      : {})}
                  >
                    {pick && (
                      <TableCell padding="checkbox">
                        <Radio
                          checked={selected}
                          onChange={() => pick.onPick(template)}
                          value={template.id}
                          name="template"
                          size="small"
                          slotProps={{ input: { 'aria-label': template.template_name } }}
                        />
                      </TableCell>
                    )}
                    <TableCell>{template.template_name}</TableCell>
                    <TableCell sx={{ fontFamily: 'monospace', fontSize: 13 }}>{template.template_id}</TableCell>
                    {full && (
                      <>
                        <TableCell sx={{ wordBreak: 'break-all' }}>{template.filename}</TableCell>
                        <TableCell align="right">{template.total_pages}</TableCell>
                        <TableCell align="right">{template.field_count}</TableCell>
                        <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatTime(template.timestamp)}</TableCell>
                        <TableCell align="right">
                          {actions && <RowActions template={template} {...actions} />}
                        </TableCell>
                      </>
                    )}
                  </TableRow>
                );
              })}
            </TemplateRowsOr>
          </TableBody>
        </Table>
      </TableContainer>
      <TemplatePagination rowsPerPageOptions={pick ? Limits.pageSizes : [...Limits.pageSizes, 25]} />
    </>
  );
};

const RowActions = ({ template, onDelete, onEdit }: TemplateRowActions & { template: TemplateView }) => {
  const t = useText();
  return (
    <>
      <Tooltip title={t('console.templates.deleteTemplate')}>
        <IconButton
          size="small"
          color="error"
          aria-label={`${t('console.templates.deleteTemplate')} ${template.template_name}`}
          onClick={() => onDelete(template)}
        >
          <DeleteOutlineIcon fontSize="small" />
        </IconButton>
      </Tooltip>
      <Tooltip title={t('console.templates.editTemplate')}>
        <IconButton
          size="small"
          aria-label={`${t('console.templates.editTemplate')} ${template.template_name}`}
          onClick={() => onEdit(template)}
        >
          <EditOutlinedIcon fontSize="small" />
        </IconButton>
      </Tooltip>
    </>
  );
};

export default TemplateGrid;
