import englishMessages from 'ra-language-english';
import { consoleCatalogue } from './catalogue';

/** The console in English: react-admin's own texts (ra-language-english) and the console's catalogue. */
export const en = { ...englishMessages, ...consoleCatalogue };
