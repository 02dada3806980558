import { Limits, Messages, StaffRoutes } from '@esign/contract';
import DeleteOutlineIcon from '@mui/icons-material/DeleteOutline';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import {
  Alert,
  Button,
  Card,
  CardContent,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  IconButton,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Tooltip,
} from '@mui/material';
import { useState } from 'react';
import { ListBase, useDelete, useNotify, useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import PageHeading from '../components/PageHeading';
import { useFormatTime } from '../organisation/OrganisationContext';
import { templateErrorText } from './errors';
import { TemplatePagination, TemplateRowsOr, TemplateSearch } from './TemplateListParts';
import TemplateSortHeader from './TemplateSortHeader';
import { TemplateTexts } from './texts';
import type { TemplateView } from './types';
import { templateListProps, useTemplateList } from './useTemplates';

const COLUMNS = 7;

/**
 * /templates: the organisation's templates (newest first until a header is clicked), a search by name,
 * '+ Create Template', and delete with a confirmation. The server sorts, searches and pages (GET /api/templates).
 */
const TemplateList = () => (
  <ListBase<TemplateView> {...templateListProps(Limits.pageSizes[1])}>
    <TemplateTable />
  </ListBase>
);

const TemplateTable = () => {
  const navigate = useNavigate();
  const notify = useNotify();
  const translate = useTranslate();
  const formatTime = useFormatTime();
  const { rows, isPending, error, refetch, sort, onSort, emptyText } = useTemplateList();
  const [doomed, setDoomed] = useState<TemplateView | null>(null);
  const [deleteOne, { isPending: deleting }] = useDelete<TemplateView>();

  const confirmDelete = () => {
    if (!doomed) return;
    void deleteOne(
      'templates',
      { id: doomed.id, previousData: doomed },
      {
        onSuccess: () => {
          setDoomed(null);
          notify('ra.notification.deleted', { type: 'info', messageArgs: { smart_count: 1 } });
          void refetch();
        },
        onError: (failure: unknown) => {
          setDoomed(null);
          notify(templateErrorText(failure), { type: 'error' });
        },
      },
    );
  };

  return (
    <Card sx={{ mt: 2, mb: 2 }}>
      <CardContent>
        <PageHeading title={Messages.templatesHeading}>
          <Button variant="contained" onClick={() => navigate(StaffRoutes.templateCreate)}>
            {Messages.createTemplate}
          </Button>
        </PageHeading>
        {error ? (
          <Alert severity="error" sx={{ mb: 2 }}>
            {templateErrorText(error)}
          </Alert>
        ) : null}
        <TemplateSearch />
        <TableContainer>
          <Table size="small" aria-label={Messages.templatesHeading}>
            <TableHead>
              <TableRow>
                <TemplateSortHeader field="template_name" sort={sort} onSort={onSort}>
                  {Messages.templateNameColumn}
                </TemplateSortHeader>
                <TemplateSortHeader field="template_id" sort={sort} onSort={onSort}>
                  {Messages.templateIdColumn}
                </TemplateSortHeader>
                <TemplateSortHeader field="filename" sort={sort} onSort={onSort}>
                  {TemplateTexts.fileNameColumn}
                </TemplateSortHeader>
                <TemplateSortHeader field="total_pages" align="right" sort={sort} onSort={onSort}>
                  {TemplateTexts.pagesColumn}
                </TemplateSortHeader>
                <TemplateSortHeader field="field_count" align="right" sort={sort} onSort={onSort}>
                  {TemplateTexts.fieldsColumn}
                </TemplateSortHeader>
                <TemplateSortHeader field="timestamp" sort={sort} onSort={onSort}>
                  {TemplateTexts.createdColumn}
                </TemplateSortHeader>
                <TableCell align="right" sx={{ fontWeight: 600 }}>
                  {TemplateTexts.actionsColumn}
                </TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              <TemplateRowsOr
                pending={isPending}
                empty={rows.length === 0 && !error}
                columns={COLUMNS}
                emptyText={emptyText}
                emptyTestId="templates-empty"
              >
                {rows.map((template) => (
                  <TableRow
                    key={template.id}
                    hover
                    data-testid="template-row"
                    data-template-id={template.template_id}
                    data-template-name={template.template_name}
                  >
                    <TableCell>{template.template_name}</TableCell>
                    <TableCell sx={{ fontFamily: 'monospace', fontSize: 13 }}>{template.template_id}</TableCell>
                    <TableCell sx={{ wordBreak: 'break-all' }}>{template.filename}</TableCell>
                    <TableCell align="right">{template.total_pages}</TableCell>
                    <TableCell align="right">{template.field_count}</TableCell>
                    <TableCell sx={{ whiteSpace: 'nowrap' }}>{formatTime(template.timestamp)}</TableCell>
                    <TableCell align="right">
                      <Tooltip title={TemplateTexts.deleteTemplate}>
                        <IconButton
                          size="small"
                          color="error"
                          aria-label={`${TemplateTexts.deleteTemplate} ${template.template_name}`}
                          onClick={() => setDoomed(template)}
                        >
                          <DeleteOutlineIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                      <Tooltip title={TemplateTexts.editTemplate}>
                        <IconButton
                          size="small"
                          aria-label={`${TemplateTexts.editTemplate} ${template.template_name}`}
                          onClick={() =>
                            navigate(`${StaffRoutes.templateCreate}?id=${encodeURIComponent(template.id)}`)
                          }
                        >
                          <EditOutlinedIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    </TableCell>
                  </TableRow>
                ))}
              </TemplateRowsOr>
            </TableBody>
          </Table>
        </TableContainer>
        <TemplatePagination rowsPerPageOptions={[...Limits.pageSizes, 25]} />
      </CardContent>
      <Dialog
        open={Boolean(doomed)}
        onClose={() => !deleting && setDoomed(null)}
        aria-labelledby="template-delete-title"
      >
        <DialogTitle id="template-delete-title">{TemplateTexts.deleteTemplate}</DialogTitle>
        <DialogContent>
          <DialogContentText>
            {Messages.deleteConfirm} {doomed ? `(${doomed.template_name})` : ''}
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setDoomed(null)} disabled={deleting}>
            {Messages.cancelButton}
          </Button>
          <Button color="error" variant="contained" onClick={confirmDelete} disabled={deleting}>
            {translate('ra.action.delete')}
          </Button>
        </DialogActions>
      </Dialog>
    </Card>
  );
};

export default TemplateList;
