import { Messages } from '@esign/contract';
import { failureText } from '../api';

/** What a failed template call shows: the API's own message for a 4xx, the catalogue's texts otherwise. */
export const templateErrorText = (error: unknown, fallback: string = Messages.internalError): string =>
  failureText(error, fallback);
