import { Shell } from '../components';
import { useI18n } from '../i18n';

/** /retry-mail-sent: confirmation that the retry mail went out. */
const RetryMailSent = () => {
  const { t } = useI18n();
  return (
    <Shell>
      <h1 className="message">{t('messages.mailSent')}</h1>
    </Shell>
  );
};

export default RetryMailSent;
