import { Limits, Messages, RequestMessages, StaffRoutes } from '@esign/contract';
import { useState } from 'react';
import { useNotify } from 'react-admin';
import type { NotificationType } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { errorText, orgId, v1 } from '../api';
import { NetworkError } from '../http';
import { allPages } from './geometry';
import type { Box } from './geometry';
import { clearPlacementSession, isOnPage, saveEntries, withoutPages } from './session';
import type { PlacementSession, SignerPlacement } from './session';

/**
 * The placement screen's state and calls: the signers' placements, the step (current signer), the page shown, and
 * whether the placements as they are now were saved (only then may the request be submitted).
 */
export function usePlacement(session: PlacementSession) {
  const notify = useNotify();
  const navigate = useNavigate();
  const { totalPages } = session;
  const [signers, setSigners] = useState<SignerPlacement[]>(session.signers);
  const [step, setStep] = useState(0);
  const [page, setPage] = useState(() => session.signers[0]?.pages[0] ?? 1);
  const [busy, setBusy] = useState(false);
  // Every edit bumps the revision; a save records the revision it sent. Submit needs the two to be equal.
  const [revision, setRevision] = useState(0);
  const [savedRevision, setSavedRevision] = useState<number | null>(null);

  const toast = (message: string, type: NotificationType) =>
    notify(message, { type, autoHideDuration: Limits.toastMs });

  const edit = (index: number, change: Partial<SignerPlacement>) => {
    setSigners((list) => list.map((signer, i) => (i === index ? { ...signer, ...change } : signer)));
    setRevision((value) => value + 1);
  };

  const goToStep = (index: number) => {
    const signer = signers[index];
    if (!signer) return;
    setStep(index);
    // Show the new signer's box: stay on this page when it is there, else go to its first page.
    if (!isOnPage(signer, page)) setPage(signer.applyAll ? 1 : (signer.pages[0] ?? page));
  };

  const current = signers[step];

  return {
    signers,
    step,
    current,
    page,
    busy,
    canSubmit: savedRevision === revision && !busy,
    setPage: (next: number) => setPage(Math.min(Math.max(1, next), totalPages)),
    move: (box: Box) => edit(step, { box, dragPage: page }),
    setApplyAll: (applyAll: boolean) => edit(step, applyAll ? { applyAll, pages: allPages(totalPages) } : { applyAll }),
    setPages: (pages: number[]) => edit(step, { pages }),
    next: () => goToStep(step + 1),
    back: () => (step === 0 ? navigate(StaffRoutes.dashboard) : goToStep(step - 1)),

    save: async () => {
      const missing = withoutPages(signers)[0];
      if (missing) {
        goToStep(signers.indexOf(missing));
        toast(Messages.noPagesSelected, 'warning');
        return;
      }
      const sent = revision;
      setBusy(true);
      try {
        const answer = await v1<{ message?: string }>('/v1/save', {
          body: { orgId: orgId(), data: saveEntries(signers, totalPages) },
        });
        if (answer?.message !== RequestMessages.saved) throw new Error('unexpected answer');
        setSavedRevision(sent);
        toast(Messages.requestSaved, 'success');
      } catch (error) {
        toast(errorText(error), 'error');
      } finally {
        setBusy(false);
      }
    },

    submit: async () => {
      setBusy(true);
      try {
        const answer = await v1<{ message?: string }>('/v1/process', {
          body: { orgId: orgId(), data: signers.map(({ refId, order }) => ({ refId, order })) },
        });
        if (answer?.message !== RequestMessages.processed) throw new Error('unexpected answer');
        clearPlacementSession();
        navigate(StaffRoutes.mailSent);
      } catch (error) {
        toast(error instanceof NetworkError ? Messages.connectionFailed : Messages.requestSubmitFailed, 'error');
        setBusy(false);
      }
    },
  };
}
