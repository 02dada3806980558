import { Limits, SignerTexts, formatDateTime } from '@esign/contract';
import type { EsignStatus, SigningRequest } from '@esign/contract';
import { useEffect } from 'react';
import { fill, withScheme } from '../api';
import { WarningImage } from '../components';

/**
 * The page a link shows once the party can no longer act on it (spec section 2, status pages by esignStatus):
 * completed with its date (the signing date, else the initiated timestamp), signing, expired, rejected, cancelled
 * with the support line.
 */
export const StatusPage = ({ request, status }: { request: SigningRequest; status: EsignStatus }) => {
  let text: string;
  switch (status) {
    case 'completed': {
      const date = request.esignedDate ?? request.timestamp;
      text = fill(SignerTexts.statusCompleted, { date: formatDateTime(date, request.time_zone) });
      break;
    }
    case 'signing':
      text = SignerTexts.statusSigning;
      break;
    case 'expired':
      text = SignerTexts.statusExpired;
      break;
    case 'rejected':
      text = SignerTexts.statusRejected;
      break;
    case 'cancelled':
      text = SignerTexts.statusCancelled;
      break;
  }
  return (
    <div className="status-page" data-testid={`status-${status}`}>
      <h1 className="message">{text}</h1>
      {status === 'cancelled' && (
        <>
          <p className="center">{SignerTexts.supportLine}</p>
          <p className="center note">
            {fill(SignerTexts.refAndRequest, { refId: request.refId, requestId: request.requestId })}
          </p>
        </>
      )}
    </div>
  );
};

/** A full page with a message and the warning sign: the hold-on page (code 400), a location remark, a dead link. */
export const MessagePage = ({ message, testId }: { message: string; testId: string }) => (
  <div className="status-page" data-testid={testId}>
    <WarningImage />
    <p className="message">{message}</p>
  </div>
);

/** After a successful reject: the two lines, then return_url after 2 s (spec section 4, step 11). */
export const RejectedPage = ({ returnUrl }: { returnUrl: string | null }) => {
  useEffect(() => {
    if (!returnUrl) return;
    const timer = setTimeout(() => window.location.assign(withScheme(returnUrl)), Limits.rejectRedirectMs);
    return () => clearTimeout(timer);
  }, [returnUrl]);
  return (
    <div className="status-page" data-testid="rejected">
      <h1 className="message">{SignerTexts.rejectedTitle}</h1>
      <p className="center">{SignerTexts.closeWindow}</p>
    </div>
  );
};
