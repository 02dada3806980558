import { Headers as ApiHeaders } from '@esign/contract';
import { fetchUtils } from 'react-admin';
import simpleRestProvider from 'ra-data-simple-rest';

/** Every /api call carries the session key; a 401 reaches authProvider.checkError, which signs the user out. */
export const httpClient = (url: string, options: fetchUtils.Options = {}) => {
  const headers = new Headers(options.headers ?? { Accept: 'application/json' });
  const key = localStorage.getItem('api_key');
  if (key) headers.set(ApiHeaders.apiKey, key);
  return fetchUtils.fetchJson(url, { ...options, headers });
};

export const dataProvider = simpleRestProvider('/api', httpClient);
