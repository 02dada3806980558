import { Limits, Messages, RequestMessages, StaffRoutes } from '@esign/contract';
import type { UnsavedDraftDiscard } from '@esign/contract';
import { useEffect, useRef, useState } from 'react';
import { useNotify } from 'react-admin';
import type { NotificationType } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { errorText, orgId, v1 } from '../../api';
import { NetworkError } from '../../http';
import { fromStored } from '../../fields/model';
import type { PlacedField } from '../../fields/model';
import { hasSession } from '../../session';
import { allPages } from './geometry';
import type { Box } from './geometry';
import { clearPlacementSession, isOnPage, saveEntries, withoutPages } from './session';
import type { PlacementSession, SignerPlacement } from './session';

/**
 * Removes the draft PROCEED made if it was never saved (the server keeps a saved draft or a sent request: issue 18,
 * point 7). Best effort: whatever it misses, the drafts cleanup job removes a day later, and it is never listed.
 */
async function discardUnsaved(refId: number): Promise<boolean> {
  try {
    const answer = await v1<UnsavedDraftDiscard>(`/api/drafts/${refId}/unsaved`, { method: 'DELETE' });
    return answer?.kept === false;
  } catch {
    return false;
  }
}

/**
 * The fields saved with the draft (issue 21: GET /v1/reference, each recipient's `fields`), those of its signers only;
 * null when they cannot be read (SAVE then leaves them as they are).
 */
async function savedFields(refId: number, signerOrders: number[]): Promise<PlacedField[] | null> {
  try {
    const answer = await v1<{ data?: Array<{ order?: unknown; fields?: unknown }> }>(
      `/v1/reference/${encodeURIComponent(orgId())}/${refId}`,
    );
    const fields: PlacedField[] = [];
    for (const party of answer?.data ?? []) {
      const order = Number(party.order);
      if (!signerOrders.includes(order) || !Array.isArray(party.fields)) continue;
      for (const stored of party.fields) {
        const field = fromStored(stored, order);
        if (field) fields.push({ ...field, signer: order });
      }
    }
    return fields;
  } catch {
    return null;
  }
}

/** Pages the placement hands over to without abandoning the draft: itself (a reload) and the Initiate page. */
const KEEPS_DRAFT: readonly string[] = [StaffRoutes.upload, StaffRoutes.requestInitiate];

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
  // Set once the draft was saved here, or the page is left by Back or a submission (which see to the draft).
  const saved = useRef(false);
  const handedOver = useRef(false);
  // Every signer's fields (issue 21), read from the saved draft. Until the reading is over nothing can be placed (so
  // nothing placed is lost), and a SAVE waits for it.
  const [fields, setFields] = useState<PlacedField[]>([]);
  const [fieldsState, setFieldsState] = useState<'reading' | 'known' | 'unknown'>('reading');
  const fieldsRead = useRef<Promise<PlacedField[] | null> | null>(null);

  // The session is read once per screen (its signers with it).
  useEffect(() => {
    let live = true;
    const reading = savedFields(
      session.refId,
      session.signers.map((signer) => signer.order),
    );
    fieldsRead.current = reading;
    void reading.then((read) => {
      if (!live) return;
      setFields(read ?? []);
      setFieldsState(read ? 'known' : 'unknown');
    });
    return () => {
      live = false;
    };
  }, [session.refId]);

  // Leaving the page another way (the menu, a link) before any SAVE abandons the upload: it is discarded. Not on a
  // reload (no unmount), nor towards the Initiate page (the browser's Back: it edits the same draft), nor after a
  // sign-out (no key left).
  useEffect(
    () => () => {
      if (saved.current || handedOver.current || !hasSession()) return;
      if (KEEPS_DRAFT.includes(window.location.pathname)) return;
      void discardUnsaved(session.refId).then((gone) => gone && clearPlacementSession());
    },
    [session.refId],
  );

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

  const updateFields = (update: (list: PlacedField[]) => PlacedField[]) => {
    setFields(update);
    setRevision((value) => value + 1);
  };

  return {
    signers,
    step,
    current,
    page,
    busy,
    canSubmit: savedRevision === revision && !busy,
    setPage: (next: number) => setPage(Math.min(Math.max(1, next), totalPages)),
    fields,
    fieldsReady: fieldsState !== 'reading',
    updateFields,
    /** Shows a field: its signer's step and its page. */
    showField: (field: PlacedField) => {
      const index = signers.findIndex((signer) => signer.order === field.signer);
      if (index >= 0) setStep(index);
      setPage(Math.min(Math.max(1, field.page), totalPages));
    },
    move: (box: Box) => edit(step, { box, dragPage: page, dragged: true }),
    setApplyAll: (applyAll: boolean) => edit(step, applyAll ? { applyAll, pages: allPages(totalPages) } : { applyAll }),
    setPages: (pages: number[]) => edit(step, { pages }),
    next: () => goToStep(step + 1),
    back: async () => {
      if (step > 0) return goToStep(step - 1);
      // Back from the first step: the dashboard, without the draft PROCEED made unless it was saved.
      handedOver.current = true;
      if (!saved.current) {
        setBusy(true);
        await discardUnsaved(session.refId);
      }
      clearPlacementSession();
      navigate(StaffRoutes.dashboard);
    },

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
        // The saved fields must be known before SAVE replaces them: while they are read nothing can be placed, so
        // what is sent then is what was read; fields that could not be read are not sent (the API keeps them).
        const sentFields =
          fieldsState === 'reading' ? await fieldsRead.current : fieldsState === 'known' ? fields : null;
        const answer = await v1<{ message?: string }>('/v1/save', {
          body: { orgId: orgId(), data: saveEntries(signers, totalPages, sentFields) },
        });
        if (answer?.message !== RequestMessages.saved) throw new Error('unexpected answer');
        saved.current = true;
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
        handedOver.current = true;
        clearPlacementSession();
        toast(Messages.requestSubmitted, 'success');
        navigate(StaffRoutes.mailSent);
      } catch (error) {
        toast(error instanceof NetworkError ? Messages.connectionFailed : Messages.requestSubmitFailed, 'error');
        setBusy(false);
      }
    },
  };
}
