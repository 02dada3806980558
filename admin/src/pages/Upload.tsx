import { Messages, StaffRoutes } from '@esign/contract';
import { Alert, Backdrop, Box, Button, Card, CardContent, CircularProgress, Divider, Typography } from '@mui/material';
import { useState } from 'react';
import { Navigate } from 'react-router-dom';
import PageHeading from '../components/PageHeading';
import { usePdfDocument } from '../pdf/PdfPageView';
import { signerColour } from '../placement/colors';
import { fill } from '../placement/geometry';
import HelpPopover from '../placement/HelpPopover';
import PageChoice from '../placement/PageChoice';
import PlacementPage from '../placement/PlacementPage';
import { RecipientDetails, SignerStepper } from '../placement/RecipientDetails';
import { readPlacementSession } from '../placement/session';
import type { PlacementSession } from '../placement/session';
import { usePlacement } from '../placement/usePlacement';

const Placement = ({ session }: { session: PlacementSession }) => {
  const { doc, error } = usePdfDocument(session.fileUrl);
  const placement = usePlacement(session);
  const { current, step, signers, busy } = placement;
  const totalPages = session.totalPages;

  return (
    <Box sx={{ pb: 3 }}>
      <PageHeading title={Messages.placementHeading}>
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
                  {fill(Messages.placementNotDragged, { name: current.name })}
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
              {Messages.backButton}
            </Button>
            <Button variant="outlined" disabled={busy || step >= signers.length - 1} onClick={placement.next}>
              {Messages.nextButton}
            </Button>
            <Box sx={{ flex: 1 }} />
            <Button variant="contained" disabled={busy} onClick={() => void placement.save()}>
              {Messages.saveButton}
            </Button>
            <Button
              variant="contained"
              color="secondary"
              disabled={!placement.canSubmit}
              onClick={() => void placement.submit()}
            >
              {Messages.submitRequest}
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
          />
        </CardContent>
      </Card>
      <Backdrop open={busy} sx={{ zIndex: (theme) => theme.zIndex.modal + 1, color: 'common.white', gap: 2 }}>
        <CircularProgress color="inherit" />
        <Typography variant="h6">{Messages.pleaseWait}</Typography>
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
