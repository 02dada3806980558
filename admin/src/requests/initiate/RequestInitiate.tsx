import {
  DEFAULT_LANGUAGE,
  FILE_UPLOAD_TYPES,
  Limits,
  REMINDER_LABELS,
  SIGNATURE_TYPES,
  StaffRoutes,
  isRecipientLanguage,
} from '@esign/contract';
import type { DraftReference, SignatureType, UploadResponse } from '@esign/contract';
import AddIcon from '@mui/icons-material/Add';
import PictureAsPdfIcon from '@mui/icons-material/PictureAsPdf';
import {
  Box,
  Button,
  Card,
  CardContent,
  Checkbox,
  Chip,
  FormControl,
  FormControlLabel,
  FormHelperText,
  InputLabel,
  MenuItem,
  Radio,
  RadioGroup,
  Select,
  Stack,
  Tooltip,
  Typography,
} from '@mui/material';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useNotify } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { errorText, orgId, v1 } from '../../api';
import PageHeading from '../../components/PageHeading';
import WaitBackdrop from '../../components/WaitBackdrop';
import FileDialog from './FileDialog';
import {
  NEEDS_TO_SIGN,
  RECEIVES_COPY,
  emptyRecipient,
  localPhone,
  recipientsPayload,
  validateInitiate,
  type FormProblem,
  type RecipientForm,
} from './form';
import RecipientCard from './RecipientCard';
import TemplateValues, { NO_CHANGES, templateValuesPayload, templateValuesProblem } from './TemplateValues';
import type { TemplateValueChanges } from './TemplateValues';
import { useOrganisation } from '../../organisation/OrganisationContext';
import { TemplatePicker } from '../../templates';
import type { TemplateView } from '../../templates/types';
import { useMessageText, useText } from '../../i18n/useText';

type UploadType = (typeof FILE_UPLOAD_TYPES)[number];
const [CHOOSE_FILE, CHOOSE_TEMPLATE] = FILE_UPLOAD_TYPES;

/** What the placement page (/upload) reads from local storage (spec section 3, session values). */
export function storeUploadResponse(response: UploadResponse): void {
  const signers = response.requests.filter((r) => !r.observer);
  localStorage.setItem('upload_response', JSON.stringify(response));
  localStorage.setItem('file-url', response['file-url']);
  localStorage.setItem('total-pages', String(response['total-pages']));
  localStorage.setItem('total_signatory', String(signers.length));
  localStorage.setItem('total_signatory_array', JSON.stringify(signers));
  localStorage.setItem('draggableHeight', String(Limits.pageHeightPoints));
  localStorage.setItem('refId', String(response.refId));
}

/** The draft being edited (Edit/Submit on /drafts keeps its Ref ID in local storage). */
const draftRefId = (): string | null => {
  const value = localStorage.getItem('refId');
  return value && /^\d+$/.test(value) ? value : null;
};

/**
 * /request-initiate (spec section 2): the document (a file or a template), the options and up to six recipients;
 * PROCEED uploads (a new draft, or the edited draft kept under its Ref ID) and goes on to the placement.
 */
const RequestInitiate = () => {
  const t = useText();
  const messageText = useMessageText();
  const navigate = useNavigate();
  const notify = useNotify();
  const [refId] = useState(draftRefId);
  const [uploadType, setUploadType] = useState<UploadType | ''>('');
  const [fileDialog, setFileDialog] = useState(false);
  const [pickerOpen, setPickerOpen] = useState(false);
  const [file, setFile] = useState<File | null>(null);
  const [template, setTemplate] = useState<TemplateView | null>(null);
  // The picked template's values changed for this request (its form fields, its fields' prefilled values).
  const [templateChanges, setTemplateChanges] = useState<TemplateValueChanges>(NO_CHANGES);
  const [draftFile, setDraftFile] = useState<{ name: string; loading: boolean; failed: boolean } | null>(null);
  const [parallel, setParallel] = useState(true);
  const [reminder, setReminder] = useState(false);
  const [duration, setDuration] = useState<number | null>(null);
  const [otp, setOtp] = useState(true);
  const [recipients, setRecipients] = useState<RecipientForm[]>(() => [emptyRecipient()]);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  // The signature types this organisation allows (all of them until its settings are read).
  const { organisation } = useOrganisation();
  const signatureTypes = useMemo<SignatureType[]>(
    () =>
      organisation
        ? SIGNATURE_TYPES.filter((t) => organisation.settings.signature_types.includes(t))
        : [...SIGNATURE_TYPES],
    [organisation],
  );

  // A new request starts with the organisation's reminder, when it has one (issue 22); a draft keeps its own. Once:
  // what the user then changes stays.
  const defaultsApplied = useRef(false);
  useEffect(() => {
    if (defaultsApplied.current || refId || !organisation) return;
    defaultsApplied.current = true;
    const hours = organisation.settings.reminder_default_hours;
    if (hours) {
      setReminder(true);
      setDuration(hours);
    }
  }, [organisation, refId]);

  // Editing a draft: its recipients and options, and its file (PROCEED waits for it).
  useEffect(() => {
    if (!refId) return;
    let live = true;
    setBusy(t('esign.pleaseWait'));
    v1<{ data: (DraftReference & { language?: unknown })[] }>(`/v1/reference/${encodeURIComponent(orgId())}/${refId}`)
      .then((answer) => {
        if (!live) return;
        const parties = answer.data;
        const first = parties[0];
        if (first) {
          setParallel(!first.checkOrder);
          setOtp(first.otpRequired);
          setReminder(first.reminder);
          setDuration(first.reminder_duration);
          setDraftFile({ name: first.filename, loading: true, failed: false });
          fetch(first.uploadUrl).then(
            (res) => live && setDraftFile({ name: first.filename, loading: false, failed: !res.ok }),
            () => live && setDraftFile({ name: first.filename, loading: false, failed: true }),
          );
        }
        setRecipients(
          parties.map((p) => ({
            ...emptyRecipient(),
            name: p.name,
            email: p.email,
            phone: localPhone(p.phoneNumber),
            recipientType: p.observer ? RECEIVES_COPY : NEEDS_TO_SIGN,
            signatureType: p.signature_type ?? '',
            // The draft's recipient language, once the API keeps it (issue 22); English otherwise.
            language: isRecipientLanguage(p.language) ? p.language : DEFAULT_LANGUAGE,
          })),
        );
      })
      .catch((error: unknown) => live && notify(errorText(error, t('esign.internalError')), { type: 'error' }))
      .finally(() => live && setBusy(null));
    return () => {
      live = false;
    };
  }, [refId, notify]);

  const hasDocument = Boolean(file || template || (draftFile && !draftFile.failed));
  const atLimit = recipients.length >= Limits.maxRecipients;
  const draftLoading = Boolean(draftFile?.loading);

  const chooseUploadType = (value: UploadType) => {
    setUploadType(value);
    if (value === CHOOSE_FILE) setFileDialog(true);
    else setPickerOpen(true);
  };

  const acceptFile = async (picked: File) => {
    setFileDialog(false);
    setBusy(t('esign.validatingFile'));
    const form = new FormData();
    form.set('file', picked, picked.name);
    try {
      await v1('/v1/onboard/checkDocument', { method: 'POST', body: form });
      setFile(picked);
      setTemplate(null);
    } catch (error) {
      notify(errorText(error, t('esign.documentCheckFailed')), { type: 'error' });
    } finally {
      setBusy(null);
    }
  };

  const proceed = async () => {
    const found = validateInitiate({ recipients, hasDocument, reminder, reminderDuration: duration });
    setProblem(found);
    if (found) {
      notify(found.message, { type: 'error' });
      return;
    }
    const valueProblem = !file && template ? templateValuesProblem(template, templateChanges) : null;
    if (valueProblem) {
      notify(valueProblem, { type: 'error' });
      return;
    }
    const form = new FormData();
    form.set('data', JSON.stringify(recipientsPayload(recipients)));
    // Parallel signing checked sends checkOrder as the inverse of the box state (spec section 5).
    form.set('checkOrder', String(!parallel));
    form.set('otpRequired', String(otp));
    form.set('orgId', orgId());
    if (reminder && duration) {
      form.set('reminder', 'true');
      form.set('reminder_duration', String(duration));
    }
    if (refId) form.set('refId', refId);
    if (file) form.set('file', file, file.name);
    else if (template) {
      form.set('template_id', template.template_id);
      for (const [name, value] of Object.entries(templateValuesPayload(templateChanges))) form.set(name, value);
    }
    setBusy(t('esign.pleaseWait'));
    try {
      storeUploadResponse(await v1<UploadResponse>('/v1/upload', { method: 'POST', body: form }));
      navigate(StaffRoutes.upload);
    } catch (error) {
      notify(errorText(error), { type: 'error' });
    } finally {
      setBusy(null);
    }
  };

  const documentLabel = useMemo(() => {
    if (file) return file.name;
    if (template) return `${template.template_name} (${template.template_id})`;
    if (draftFile) return draftFile.name;
    return null;
  }, [file, template, draftFile]);

  return (
    <Card sx={{ my: 2 }}>
      <CardContent>
        <PageHeading title={t('esign.initiateRequestHeading')}>
          {refId && (
            <Chip
              color="primary"
              variant="outlined"
              label={t('console.initiate.refIdChip', { refId })}
              data-testid="ref-id"
            />
          )}
        </PageHeading>

        <Stack spacing={2}>
          <Box sx={{ display: 'flex', gap: 2, alignItems: 'center', flexWrap: 'wrap' }}>
            <FormControl sx={{ minWidth: 260 }} error={problem?.field === 'document'}>
              <InputLabel id="upload-type">{t('esign.selectFileUploadType')}</InputLabel>
              <Select
                labelId="upload-type"
                label={t('esign.selectFileUploadType')}
                value={uploadType}
                onChange={(e) => chooseUploadType(e.target.value as UploadType)}
              >
                {FILE_UPLOAD_TYPES.map((type) => (
                  <MenuItem key={type} value={type}>
                    {messageText(type)}
                  </MenuItem>
                ))}
              </Select>
              <FormHelperText>{problem?.field === 'document' ? messageText(problem.message) : ' '}</FormHelperText>
            </FormControl>
            {uploadType === CHOOSE_FILE && (
              <Button variant="outlined" onClick={() => setFileDialog(true)}>
                {t('esign.chooseFile')}
              </Button>
            )}
            {uploadType === CHOOSE_TEMPLATE && (
              <Button variant="outlined" onClick={() => setPickerOpen(true)}>
                {t('esign.pickTemplate')}
              </Button>
            )}
            {documentLabel && (
              <Chip icon={<PictureAsPdfIcon />} label={documentLabel} data-testid="document" color="primary" />
            )}
          </Box>

          {template && !file && (
            <TemplateValues
              template={template}
              changes={templateChanges}
              disabled={busy !== null}
              onChange={setTemplateChanges}
            />
          )}

          <Box sx={{ display: 'flex', gap: 3, flexWrap: 'wrap', alignItems: 'center' }}>
            <FormControlLabel
              control={<Checkbox checked={parallel} onChange={(e) => setParallel(e.target.checked)} />}
              label={t('esign.enableParallelSigning')}
            />
            <FormControlLabel
              control={
                <Checkbox
                  checked={reminder}
                  onChange={(e) => {
                    setReminder(e.target.checked);
                    if (!e.target.checked) setDuration(null);
                  }}
                />
              }
              label={t('esign.setReminder')}
            />
            {reminder && (
              <FormControl error={problem?.field === 'duration'}>
                <RadioGroup
                  row
                  aria-label={t('esign.setReminder')}
                  value={duration === null ? '' : String(duration)}
                  onChange={(e) => setDuration(Number(e.target.value))}
                >
                  {Limits.reminderHours.map((hours) => (
                    <FormControlLabel
                      key={hours}
                      value={String(hours)}
                      control={<Radio />}
                      label={messageText(REMINDER_LABELS[hours])}
                    />
                  ))}
                </RadioGroup>
                {problem?.field === 'duration' && <FormHelperText>{messageText(problem.message)}</FormHelperText>}
              </FormControl>
            )}
            <FormControlLabel
              control={<Checkbox checked={otp} onChange={(e) => setOtp(e.target.checked)} />}
              label={t('esign.otpVerificationCheckbox')}
            />
          </Box>

          {recipients.map((r, index) => (
            <RecipientCard
              key={r.key}
              index={index}
              value={r}
              signatureTypes={signatureTypes}
              problem={problem}
              onChange={(next) => setRecipients((all) => all.map((x) => (x.key === r.key ? next : x)))}
              onRemove={
                recipients.length > 1 ? () => setRecipients((all) => all.filter((x) => x.key !== r.key)) : undefined
              }
            />
          ))}

          <Box sx={{ display: 'flex', justifyContent: 'space-between', alignItems: 'center' }}>
            <Tooltip title={atLimit ? t('esign.maximumLimitReached') : t('esign.addMoreSignatories')}>
              {/* A disabled button fires no events: the span keeps the tooltip working at the limit. */}
              <span>
                <Button
                  startIcon={<AddIcon />}
                  disabled={atLimit}
                  aria-label={t('esign.addMoreSignatories')}
                  onClick={() => setRecipients((all) => [...all, emptyRecipient()])}
                >
                  {t('console.common.add')}
                </Button>
              </span>
            </Tooltip>
            <Button
              variant="contained"
              size="large"
              disabled={draftLoading || busy !== null}
              onClick={() => void proceed()}
            >
              {draftLoading ? t('esign.pleaseWait') : t('esign.proceed')}
            </Button>
          </Box>
          {draftFile?.failed && <Typography color="error">{t('esign.documentCheckFailed')}</Typography>}
        </Stack>
      </CardContent>

      <FileDialog open={fileDialog} onCancel={() => setFileDialog(false)} onSelect={(f) => void acceptFile(f)} />
      <TemplatePicker
        open={pickerOpen}
        onClose={() => setPickerOpen(false)}
        onSelect={(picked: TemplateView) => {
          setPickerOpen(false);
          if (picked.template_id !== template?.template_id) setTemplateChanges(NO_CHANGES);
          setTemplate(picked);
          setFile(null);
        }}
      />
      <WaitBackdrop open={busy !== null} text={busy ?? undefined} />
    </Card>
  );
};

export default RequestInitiate;
