import { StaffRoutes } from '@esign/contract';
import { useEffect } from 'react';
import { useLocation } from 'react-router-dom';
import { useI18n } from '../i18n';

/**
 * Unknown routes: the console serves /not-found, so leave this app for it. If this app itself is asked for
 * /not-found (a development server without the API), show the text rather than reload forever.
 */
const NotFound = () => {
  const { pathname } = useLocation();
  const { t } = useI18n();
  const here = pathname === StaffRoutes.notFound;
  useEffect(() => {
    if (!here) window.location.replace(StaffRoutes.notFound);
  }, [here]);
  return here ? <h1 className="message">{t('messages.notFoundPage')}</h1> : null;
};

export default NotFound;
