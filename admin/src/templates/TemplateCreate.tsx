import { Limits, RequestMessages, StaffRoutes } from '@esign/contract';
import type { FormFieldValues } from '@esign/contract';
import CloseIcon from '@mui/icons-material/Close';
import NavigateBeforeIcon from '@mui/icons-material/NavigateBefore';
import NavigateNextIcon from '@mui/icons-material/NavigateNext';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import {
  Box,
  Button,
  Card,
  CardActions,
  CardContent,
  CircularProgress,
  Divider,
  IconButton,
  List,
  ListItem,
  ListItemText,
  MenuItem,
  Paper,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import type { PDFDocumentProxy, PageViewport } from 'pdfjs-dist';
import { useEffect, useMemo, useState } from 'react';
import type { ChangeEvent } from 'react';
import { useNotify } from 'react-admin';
import { useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { errorText, v1 } from '../api';
import PageHeading from '../components/PageHeading';
import { FieldPageLayer, FieldTools } from '../fields/FieldTools';
import FormFieldValueInput, { formFieldGroups } from '../fields/FormFieldValueInput';
import { firstProblem, fromStored, toFieldInput } from '../fields/model';
import type { PlacedField } from '../fields/model';
import { useFieldEditor } from '../fields/useFieldEditor';
import { usePageSizes } from '../fields/usePageSizes';
import { PdfPageView, usePdfDocument } from '../pdf/PdfPageView';
import { signerColour } from '../requests/placement/colors';
import { freshFieldName, pixelsToBbox, readFormFields, toTemplateAnnotation } from './formFields';
import type { EditorField, PixelBox } from './formFields';
import { checkPdfFile } from '../requests/initiate/form';
import TemplateFieldsLayer, { FIELD_COLORS } from './TemplateFieldsLayer';
import { TemplateTexts } from './texts';
import type { TemplateView } from './types';
import { useText } from '../i18n/useText';

/** Height of the page as shown, in CSS pixels. */
const PAGE_HEIGHT_PX = 800;

/** `from`, when it is a path of this console (never another site): where Save and Cancel return to. */
export const returnPath = (from: string | null): string | null =>
  from && from.startsWith('/') && !from.startsWith('//') && !from.startsWith('/\\') ? from : null;

/** The viewport PdfPageView draws `pageNumber` with (same scale), to place the fields in its pixels. */
function usePageViewport(doc: PDFDocumentProxy | null, pageNumber: number, height: number): PageViewport | null {
  const [shown, setShown] = useState<{ doc: PDFDocumentProxy; pageNumber: number; viewport: PageViewport } | null>(
    null,
  );
  useEffect(() => {
    if (!doc) return;
    let cancelled = false;
    doc.getPage(pageNumber).then(
      (page) => {
        if (cancelled) return;
        const base = page.getViewport({ scale: 1 });
        setShown({ doc, pageNumber, viewport: page.getViewport({ scale: height / base.height }) });
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [doc, pageNumber, height]);
  return shown && shown.doc === doc && shown.pageNumber === pageNumber ? shown.viewport : null;
}

/** The roles a template's fields are placed for: Signer 1…6 (role n: the n-th recipient who needs to sign). */
const ROLES = Array.from({ length: Limits.maxRecipients }, (_, i) => i + 1);

/**
 * /templates/create: choose a PDF, name the template, see its pages with their form fields (read in the browser with
 * pdf.js) and set their values, draw signature fields, remove fields, place fields for roles (Signer 1…6: issue 21),
 * and Save (POST /api/templates with the annotation built here). With `?id=` the template is edited instead (its PDF
 * stays; Save is PUT /api/templates/{id}). Save and Cancel return to `?from=` when given (the Initiate page's picker),
 * else to /templates (Cancel: back).
 */
const TemplateCreate = () => {
  const t = useText();
  const navigate = useNavigate();
  const location = useLocation();
  const notify = useNotify();
  const [params] = useSearchParams();
  const from = returnPath(params.get('from'));
  const editId = params.get('id');

  const [file, setFile] = useState<File | null>(null);
  const [bytes, setBytes] = useState<ArrayBuffer | null>(null);
  const [fileError, setFileError] = useState('');
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState('');
  const [fields, setFields] = useState<EditorField[]>([]);
  const [fieldsRead, setFieldsRead] = useState(false);
  const [pageNumber, setPageNumber] = useState(1);
  const [highlighted, setHighlighted] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  // The values set for the PDF's own form fields (only those set: the others keep the PDF's).
  const [formValues, setFormValues] = useState<FormFieldValues>({});
  // Fields placed for roles (issue 21), and the role placed for now.
  const [roleFields, setRoleFields] = useState<PlacedField[]>([]);
  const [role, setRole] = useState(1);
  // Editing: the template as saved (its annotation is the editor's start, not the PDF's own reading).
  const [editing, setEditing] = useState<TemplateView | null>(null);

  const { doc, error: pdfError } = usePdfDocument(bytes);
  const viewport = usePageViewport(doc, pageNumber, PAGE_HEIGHT_PX);
  const totalPages = doc?.numPages ?? 0;
  const { sizeOf, ready: sizesRead } = usePageSizes(doc);
  const editor = useFieldEditor({
    fields: roleFields,
    update: setRoleFields,
    signer: role,
    page: pageNumber,
    totalPages: sizesRead ? totalPages : 0,
    sizeOf,
  });
  const groups = useMemo(() => formFieldGroups(fields), [fields]);

  // Editing a template: its name, annotation and PDF (read as bytes, as a chosen file is).
  useEffect(() => {
    if (!editId) return;
    let cancelled = false;
    v1<TemplateView>(`/api/templates/${encodeURIComponent(editId)}`)
      .then(async (template) => {
        const pdf = await fetch(template.template_link);
        if (!pdf.ok) throw new Error('template PDF not read');
        const read = await pdf.arrayBuffer();
        if (cancelled) return;
        setEditing(template);
        setName(template.template_name);
        setBytes(read);
      })
      .catch((error: unknown) => !cancelled && notify(errorText(error, t('esign.internalError')), { type: 'error' }));
    return () => {
      cancelled = true;
    };
  }, [editId, notify]);

  // A newly opened document: its own form fields (or, editing, the template's), from page 1.
  useEffect(() => {
    setFields([]);
    setFieldsRead(false);
    setPageNumber(1);
    setRoleFields([]);
    setFormValues({});
    if (!doc) return;
    if (editing) {
      const annotation = editing.template_annotation;
      setFields(
        annotation.annotations.map((a, i) => ({
          ...a,
          key: `saved-${i}`,
          drawn: a.customData.type === 'signature-field',
        })),
      );
      setFormValues(annotation.formFieldValues ?? {});
      setRoleFields(
        (annotation.fields ?? []).flatMap((stored) => {
          const field = fromStored(stored);
          return field ? [field] : [];
        }),
      );
      setFieldsRead(true);
      return;
    }
    let cancelled = false;
    readFormFields(doc).then(
      (read) => {
        if (cancelled) return;
        setFields(read);
        setFieldsRead(true);
      },
      () => !cancelled && setFieldsRead(true),
    );
    return () => {
      cancelled = true;
    };
  }, [doc, editing]);

  // pdf.js cannot read the file: the server's check names the reason (damaged, encrypted…).
  useEffect(() => {
    if (!pdfError || !file) return;
    let cancelled = false;
    const form = new FormData();
    form.append('file', file, file.name);
    v1('/v1/onboard/checkDocument', { method: 'POST', body: form }).then(
      () => !cancelled && setFileError(t('esign.pdfDamaged')),
      (error: unknown) => !cancelled && setFileError(errorText(error, t('esign.pdfDamaged'))),
    );
    return () => {
      cancelled = true;
    };
  }, [pdfError, file]);

  const pageFields = useMemo(() => fields.filter((field) => field.pageIndex === pageNumber - 1), [fields, pageNumber]);

  const pick = async (event: ChangeEvent<HTMLInputElement>) => {
    const picked = event.target.files?.[0];
    event.target.value = '';
    if (!picked) return;
    const problem = checkPdfFile(picked);
    setFile(problem ? null : picked);
    setBytes(null);
    setFileError(problem ?? '');
    if (problem) return;
    try {
      setBytes(await picked.arrayBuffer());
    } catch {
      setFile(null);
      setFileError(t('esign.pdfDamaged'));
    }
  };

  const draw = (box: PixelBox) => {
    if (!viewport) return;
    setFields((current) => [
      ...current,
      {
        key: `drawn-${Date.now()}-${current.length}`,
        drawn: true,
        // The field's name is data in the PDF, not a label: always the English name.
        formFieldName: freshFieldName(current, TemplateTexts.newSignatureField),
        bbox: pixelsToBbox(box, viewport),
        pageIndex: pageNumber - 1,
        customData: { type: 'signature-field' },
      },
    ]);
  };

  const remove = (key: string) => {
    setFields((current) => current.filter((field) => field.key !== key));
    setHighlighted(null);
  };

  const setFormValue = (name: string, value: string | boolean) => setFormValues((all) => ({ ...all, [name]: value }));

  const leave = () => {
    if (from) navigate(from);
    else if (location.key !== 'default') navigate(-1);
    else navigate(StaffRoutes.templates);
  };

  const save = async () => {
    const trimmed = name.trim();
    const nameProblem = trimmed ? '' : RequestMessages.templateNameRequired;
    setNameError(nameProblem);
    if (!file && !fileError && !editing) setFileError(RequestMessages.fileRequired);
    if (nameProblem || (!file && !editing) || fileError || pdfError) return;
    // No field the API would refuse: the first one is shown, with its problem, instead.
    const problem = firstProblem(roleFields, sizeOf, sizesRead ? totalPages : 0);
    if (problem) {
      setRole(problem.field.signer);
      setPageNumber(problem.field.page);
      editor.select(problem.field.id);
      notify(problem.message, { type: 'warning' });
      return;
    }
    const annotation = toTemplateAnnotation(
      fields,
      formValues,
      roleFields.map((field) => toFieldInput(field) as PlacedField),
    );
    setSaving(true);
    try {
      if (editing) {
        await v1<TemplateView>(`/api/templates/${encodeURIComponent(editing.id)}`, {
          method: 'PUT',
          body: { template_name: trimmed, template_annotation: annotation },
        });
      } else if (file) {
        const form = new FormData();
        form.append('file', file, file.name);
        form.append('template_name', trimmed);
        form.append('template_annotation', JSON.stringify(annotation));
        await v1<TemplateView>('/api/templates', { method: 'POST', body: form });
      }
    } catch (error) {
      setSaving(false);
      notify(errorText(error), { type: 'error' });
      return;
    }
    notify(editing ? 'ra.notification.updated' : 'ra.notification.created', {
      type: 'success',
      messageArgs: { smart_count: 1 },
    });
    navigate(from ?? StaffRoutes.templates);
  };

  const busy = saving || (Boolean(doc) && !fieldsRead);

  return (
    <Card sx={{ mt: 2, mb: 2 }}>
      <CardContent>
        <PageHeading title={t('esign.templateEditorHeading')} />
        <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'flex-start', gap: 3 }}>
          <Box sx={{ minWidth: 260 }}>
            <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5 }}>
              <Button
                variant="outlined"
                component="label"
                startIcon={<UploadFileIcon />}
                disabled={saving || Boolean(editId)}
              >
                {t('esign.chooseFile')}
                <input
                  hidden
                  type="file"
                  accept="application/pdf,.pdf"
                  data-testid="template-file-input"
                  onChange={(event) => void pick(event)}
                />
              </Button>
              <Typography data-testid="template-file-name" sx={{ wordBreak: 'break-all' }}>
                {file?.name ?? editing?.filename ?? ''}
              </Typography>
            </Box>
            <Typography variant="caption" component="p" color="text.secondary" sx={{ mt: 1 }}>
              {t('esign.fileNoteOnlyPdf')}
            </Typography>
            <Typography variant="caption" component="p" color="text.secondary">
              {t('esign.fileNoteMaxSize')}
            </Typography>
            <Typography
              role="alert"
              data-testid="template-file-error"
              sx={{ color: 'error.main', fontSize: 14, minHeight: '1.5em', mt: 0.5 }}
            >
              {fileError}
            </Typography>
          </Box>
          <TextField
            label={t('esign.templateNameColumn')}
            name="template_name"
            required
            value={name}
            disabled={saving}
            error={Boolean(nameError)}
            helperText={nameError || ' '}
            onChange={(event) => {
              setName(event.target.value);
              if (event.target.value.trim()) setNameError('');
            }}
            sx={{ flex: 1, minWidth: 260, maxWidth: 480 }}
            slotProps={{ formHelperText: { role: nameError ? 'alert' : undefined } }}
          />
        </Box>
        <Divider sx={{ my: 2 }} />
        <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'flex-start', gap: 2 }}>
          <Box
            sx={{
              flex: 1,
              minWidth: 320,
              bgcolor: 'grey.100',
              borderRadius: 1,
              p: 2,
              overflow: 'auto',
              textAlign: 'center',
            }}
          >
            {doc ? (
              <>
                <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'center', gap: 1, mb: 1.5 }}>
                  <Button
                    size="small"
                    startIcon={<NavigateBeforeIcon />}
                    disabled={pageNumber <= 1}
                    onClick={() => setPageNumber((n) => Math.max(1, n - 1))}
                  >
                    {t('esign.backButton')}
                  </Button>
                  <Typography data-testid="template-page-number" sx={{ minWidth: 90 }}>
                    {t('esign.pageOfTotal', { page: pageNumber, total: totalPages })}
                  </Typography>
                  <Button
                    size="small"
                    endIcon={<NavigateNextIcon />}
                    disabled={pageNumber >= totalPages}
                    onClick={() => setPageNumber((n) => Math.min(totalPages, n + 1))}
                  >
                    {t('esign.nextButton')}
                  </Button>
                </Box>
                <PdfPageView doc={doc} pageNumber={pageNumber} height={PAGE_HEIGHT_PX}>
                  {viewport && (
                    <TemplateFieldsLayer
                      viewport={viewport}
                      fields={pageFields}
                      highlighted={highlighted}
                      onDraw={draw}
                    />
                  )}
                  {viewport && (
                    <FieldPageLayer
                      editor={editor}
                      fields={roleFields}
                      page={pageNumber}
                      size={sizeOf(pageNumber)}
                      shownHeight={viewport.height}
                      signer={role}
                      disabled={saving}
                      colourOf={(field) => signerColour(field.signer - 1)}
                      ownerOf={(field) => t('console.fields.roleName', { n: field.signer })}
                    />
                  )}
                </PdfPageView>
              </>
            ) : (
              <Box sx={{ minHeight: 240, display: 'grid', placeItems: 'center', color: 'text.secondary' }}>
                {bytes && !pdfError ? (
                  <CircularProgress />
                ) : (
                  <Typography>{t('console.templates.chooseFirst')}</Typography>
                )}
              </Box>
            )}
          </Box>
          <Stack spacing={2} sx={{ width: 300, maxWidth: '100%' }}>
            {doc && (
              <FieldTools
                editor={editor}
                heading={t('console.fields.templateFieldsHeading')}
                colour={signerColour(role - 1)}
                disabled={saving || !sizesRead}
                sticky={false}
                before={
                  <TextField
                    select
                    size="small"
                    fullWidth
                    label={t('console.fields.role')}
                    value={role}
                    onChange={(event) => {
                      setRole(Number(event.target.value));
                      editor.select(null);
                    }}
                    sx={{ mb: 1.5 }}
                    slotProps={{ htmlInput: { 'data-testid': 'field-role' } }}
                  >
                    {ROLES.map((n) => (
                      <MenuItem key={n} value={n}>
                        {t('console.fields.roleName', { n })}
                      </MenuItem>
                    ))}
                  </TextField>
                }
              />
            )}
            <Paper variant="outlined" sx={{ p: 2 }}>
              <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600 }}>
                {t('console.templates.fieldsPanelHeading')} ({fields.length})
              </Typography>
              <Typography variant="caption" color="text.secondary">
                {t('console.templates.drawHint')}
              </Typography>
              {doc && !fieldsRead ? (
                <Box sx={{ display: 'grid', placeItems: 'center', py: 2 }}>
                  <CircularProgress size={24} />
                </Box>
              ) : pageFields.length === 0 ? (
                <Typography variant="body2" color="text.secondary" sx={{ mt: 2 }}>
                  {t('console.templates.noFieldsOnPage')}
                </Typography>
              ) : (
                <List dense sx={{ maxHeight: PAGE_HEIGHT_PX - 40, overflow: 'auto' }}>
                  {pageFields.map((field) => (
                    <ListItem
                      key={field.key}
                      data-testid="template-field-item"
                      data-field-name={field.formFieldName}
                      disableGutters
                      onMouseEnter={() => setHighlighted(field.key)}
                      onMouseLeave={() => setHighlighted(null)}
                      secondaryAction={
                        <IconButton
                          edge="end"
                          size="small"
                          aria-label={`${t('console.templates.removeField')} ${field.formFieldName}`}
                          onClick={() => remove(field.key)}
                          disabled={saving}
                        >
                          <CloseIcon fontSize="small" />
                        </IconButton>
                      }
                      sx={{ borderLeft: `3px solid ${FIELD_COLORS[field.customData.type]}`, pl: 1, mb: 0.5 }}
                    >
                      <Box sx={{ flex: 1, minWidth: 0 }}>
                        <ListItemText
                          primary={field.formFieldName}
                          secondary={
                            field.customData.option
                              ? `${field.customData.type} · ${field.customData.option}`
                              : field.customData.type
                          }
                          slotProps={{ primary: { sx: { wordBreak: 'break-word' } } }}
                        />
                        {/* One value per form field: its input on the first of its widgets on this page. */}
                        {pageFields.find((f) => f.formFieldName === field.formFieldName) === field &&
                          groups.some((g) => g.name === field.formFieldName) && (
                            <Box sx={{ mb: 0.5 }} data-testid="form-field-value" data-field-name={field.formFieldName}>
                              <FormFieldValueInput
                                group={groups.find((g) => g.name === field.formFieldName)!}
                                value={formValues[field.formFieldName]}
                                disabled={saving}
                                onChange={(value) => setFormValue(field.formFieldName, value)}
                              />
                            </Box>
                          )}
                      </Box>
                    </ListItem>
                  ))}
                </List>
              )}
            </Paper>
          </Stack>
        </Box>
      </CardContent>
      <CardActions sx={{ justifyContent: 'flex-end', px: 2, pb: 2 }}>
        <Button onClick={leave} disabled={saving}>
          {t('esign.cancelButton')}
        </Button>
        <Button
          variant="contained"
          onClick={() => void save()}
          disabled={busy}
          startIcon={saving ? <CircularProgress size={18} color="inherit" /> : undefined}
        >
          {t('esign.templateSave')}
        </Button>
      </CardActions>
    </Card>
  );
};

export default TemplateCreate;
