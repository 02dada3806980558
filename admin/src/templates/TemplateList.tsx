import { Limits, StaffRoutes } from '@esign/contract';
import {
  Button,
  Card,
  CardContent,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
} from '@mui/material';
import { useState } from 'react';
import { ListBase, useDelete, useListContext, useNotify, useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import PageHeading from '../components/PageHeading';
import { templateErrorText } from './errors';
import TemplateGrid from './TemplateGrid';
import type { TemplateView } from './types';
import { templateListProps } from './useTemplates';
import { useText } from '../i18n/useText';

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
  const t = useText();
  const navigate = useNavigate();
  const notify = useNotify();
  const translate = useTranslate();
  const { refetch } = useListContext<TemplateView>();
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
        <PageHeading title={t('esign.templatesHeading')}>
          <Button variant="contained" onClick={() => navigate(StaffRoutes.templateCreate)}>
            {t('esign.createTemplate')}
          </Button>
        </PageHeading>
        <TemplateGrid
          label={t('esign.templatesHeading')}
          actions={{
            onDelete: setDoomed,
            onEdit: (template) => navigate(`${StaffRoutes.templateCreate}?id=${encodeURIComponent(template.id)}`),
          }}
        />
      </CardContent>
      <Dialog
        open={Boolean(doomed)}
        onClose={() => !deleting && setDoomed(null)}
        aria-labelledby="template-delete-title"
      >
        <DialogTitle id="template-delete-title">{t('console.templates.deleteTemplate')}</DialogTitle>
        <DialogContent>
          <DialogContentText>
            {t('esign.deleteConfirm')} {doomed ? `(${doomed.template_name})` : ''}
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setDoomed(null)} disabled={deleting}>
            {t('esign.cancelButton')}
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
