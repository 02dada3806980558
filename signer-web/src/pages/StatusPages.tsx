import { Limits, formatDateTime } from '@esign/contract';
import type { EsignStatus, SigningRequest } from '@esign/contract';
import { useEffect } from 'react';
import { withScheme } from '../api';
import { WarningImage } from '../components';
import { useI18n } from '../i18n';

/**
 * The page a link shows once the party can no longer act on it (spec section 2, status pages by esignStatus):
 * completed with its date (the signing date, else the initiated timestamp), signing, expired, rejected, cancelled
 * with the support line.
 */
export const StatusPage = ({ request, status }: { request: SigningRequest; status: EsignStatus }) => {
  const { t, language } = useI18n();
  let text: string;
  switch (status) {
    case 'completed': {
      const date = request.esignedDate ?? request.timestamp;
      text = t('page.statusCompleted', { date: formatDateTime(date, request.time_zone, language) });
      break;
    }
    case 'signing':
      text = t('page.statusSigning');
      break;
    case 'expired':
      text = t('page.statusExpired');
      break;
    case 'rejected':
      text = t('page.statusRejected');
      break;
    case 'cancelled':
      text = t('page.statusCancelled');
      break;
  }
  return (
    <div className="status-page" data-testid={`status-${status}`}>
      <h1 className="message">{text}</h1>
      {status === 'cancelled' && (
        <>
          <p className="center">{t('page.supportLine')}</p>
          <p className="center note">
            {t('page.refAndRequest', { refId: request.refId, requestId: request.requestId })}
          </p>
        </>
      )}
    </div>
  );
};

/**
 * A full page with a message and the warning sign: the hold-on page (code 400), a location remark, a dead link. The
 * API's English words are shown in the page's language when the catalogue knows them.
 */
export const MessagePage = ({ message, testId }: { message: string; testId: string }) => {
  const { known } = useI18n();
  return (
    <div className="status-page" data-testid={testId}>
      <WarningImage />
      <p className="message">{known(message)}</p>
    </div>
  );
};

/** After a successful reject: the two lines, then return_url after 2 s (spec section 4, step 11). */
export const RejectedPage = ({ returnUrl }: { returnUrl: string | null }) => {
  const { t } = useI18n();
  useEffect(() => {
    if (!returnUrl) return;
    const timer = setTimeout(() => window.location.assign(withScheme(returnUrl)), Limits.rejectRedirectMs);
    return () => clearTimeout(timer);
  }, [returnUrl]);
  return (
    <div className="status-page" data-testid="rejected">
      <h1 className="message">{t('page.rejectedTitle')}</h1>
      <p className="center">{t('page.closeWindow')}</p>
    </div>
  );
};
