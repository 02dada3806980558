import { Messages } from '@esign/contract';
import { Shell } from '../components';

/** /retry-mail-sent: confirmation that the retry mail went out. */
const RetryMailSent = () => (
  <Shell>
    <h1 className="message">{Messages.mailSent}</h1>
  </Shell>
);

export default RetryMailSent;
