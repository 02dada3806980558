import { Limits, StaffRoutes } from '@esign/contract';
import { Alert, Backdrop, Box, Button, Card, CardContent, CircularProgress, Divider, Typography } from '@mui/material';
import { useState } from 'react';
import { useNotify } from 'react-admin';
import { Navigate } from 'react-router-dom';
import PageHeading from '../../components/PageHeading';
import { FieldPageLayer, FieldTools } from '../../fields/FieldTools';
import { firstProblem } from '../../fields/model';
import type { PlacedField } from '../../fields/model';
import { useFieldEditor } from '../../fields/useFieldEditor';
import { usePageSizes } from '../../fields/usePageSizes';
import { usePdfDocument } from '../../pdf/PdfPageView';
import { signerColour } from './colors';
import { fill } from './geometry';
import HelpPopover from './HelpPopover';
import PageChoice from './PageChoice';
import PlacementPage from './PlacementPage';
import { RecipientDetails, SignerStepper } from './RecipientDetails';
import { readPlacementSession } from './session';
import type { PlacementSession } from './session';
import { usePlacement } from './usePlacement';
import { useText } from '../../i18n/useText';

const Placement = ({ session }: { session: PlacementSession }) => {
  const t = useText();
  const { doc, error } = usePdfDocument(session.fileUrl);
  const placement = usePlacement(session);
  const { current, step, signers, busy } = placement;
  const totalPages = session.totalPages;
  const notify = useNotify();
  const { sizeOf, ready: sizesRead } = usePageSizes(doc);
  const documentPages = doc?.numPages ?? totalPages;
  // Fields beside the signature boxes (issue 21): the current signer's are placed and edited here.
  const editor = useFieldEditor({
    fields: placement.fields,
    update: placement.updateFields,
    signer: current?.order ?? 0,
    page: placement.page,
    totalPages: sizesRead ? documentPages : 0,
    sizeOf,
  });
  const indexOf = (field: PlacedField) => signers.findIndex((signer) => signer.order === field.signer);
  const colourOf = (field: PlacedField) => signerColour(Math.max(0, indexOf(field)));
  const ownerOf = (field: PlacedField) => signers[indexOf(field)]?.name ?? String(field.signer);

  // SAVE sends no field the API would refuse: the first one is shown, with its problem, instead.
  const save = () => {
    const problem = firstProblem(placement.fields, sizeOf, sizesRead ? documentPages : 0);
    if (problem) {
      placement.showField(problem.field);
      editor.select(problem.field.id);
      notify(problem.message, { type: 'warning', autoHideDuration: Limits.toastMs });
      return;
    }
    void placement.save();
  };

  return (
    <Box sx={{ pb: 3 }}>
      <PageHeading title={t('esign.placementHeading')}>
        <HelpPopover />
      </PageHeading>
      <Card>
        <CardContent>
          <SignerStepper signers={signers} step={step} />
          <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'flex-start', gap: 3 }}>
            <Box sx={{ flex: '1 1 280px' }}>
              {current && (
                <RecipientDetails signer={current} colour={signerColour(step)} copyReceivers={session.copyReceivers} />
              )}
              {current && !current.dragged && (
                <Alert severity="info" sx={{ mt: 1 }} data-testid="not-dragged">
                  {fill(t('esign.placementNotDragged'), { name: current.name })}
                </Alert>
              )}
            </Box>
            {current && (
              <Box sx={{ flex: '2 1 420px' }}>
                <PageChoice
                  totalPages={totalPages}
                  pages={current.pages}
                  applyAll={current.applyAll}
                  disabled={busy}
                  onPages={placement.setPages}
                  onApplyAll={placement.setApplyAll}
                />
              </Box>
            )}
          </Box>
          <Divider sx={{ my: 2 }} />
          <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1 }}>
            <Button variant="outlined" disabled={busy} onClick={() => void placement.back()}>
              {t('esign.backButton')}
            </Button>
            <Button variant="outlined" disabled={busy || step >= signers.length - 1} onClick={placement.next}>
              {t('esign.nextButton')}
            </Button>
            <Box sx={{ flex: 1 }} />
            <Button variant="contained" disabled={busy} onClick={save}>
              {t('esign.saveButton')}
            </Button>
            <Button
              variant="contained"
              color="secondary"
              disabled={!placement.canSubmit}
              onClick={() => void placement.submit()}
            >
              {t('esign.submitRequest')}
            </Button>
          </Box>
        </CardContent>
      </Card>
      <Card sx={{ mt: 2 }}>
        <CardContent>
          <PlacementPage
            doc={doc}
            failed={error}
            page={placement.page}
            totalPages={doc?.numPages ?? totalPages}
            signers={signers}
            step={step}
            disabled={busy}
            onPage={placement.setPage}
            onMove={placement.move}
            overlay={(shown) => (
              <FieldPageLayer
                editor={editor}
                fields={placement.fields}
                page={placement.page}
                size={sizeOf(placement.page)}
                shownHeight={shown.height}
                signer={current?.order ?? 0}
                disabled={busy}
                colourOf={colourOf}
                ownerOf={ownerOf}
              />
            )}
            side={
              current && (
                <FieldTools
                  editor={editor}
                  heading={t('console.fields.paletteFor', { name: current.name })}
                  colour={signerColour(step)}
                  disabled={busy || !placement.fieldsReady || !sizesRead}
                />
              )
            }
          />
        </CardContent>
      </Card>
      <Backdrop open={busy} sx={{ zIndex: (theme) => theme.zIndex.modal + 1, color: 'common.white', gap: 2 }}>
        <CircularProgress color="inherit" />
        <Typography variant="h6">{t('esign.pleaseWait')}</Typography>
      </Backdrop>
    </Box>
  );
};

/**
 * /upload: where each signer's signature goes. Starts from what the Initiate page stored (upload_response and the
 * values beside it); without it there is nothing to place, so the dashboard is shown instead.
 */
const Upload = () => {
  const [session] = useState(readPlacementSession);
  if (!session) return <Navigate to={StaffRoutes.dashboard} replace />;
  return <Placement session={session} />;
};

export default Upload;
