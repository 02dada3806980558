import { SignerRoutes } from '@esign/contract';
import { Suspense, lazy } from 'react';
import { Route, Routes, useParams } from 'react-router-dom';
import { PleaseWait, Shell } from './components';
import { useI18n } from './i18n';
import NotFound from './pages/NotFound';
import RetryMailSent from './pages/RetryMailSent';

// The signing page is what a recipient opens first (in the entry chunk: a lazy page would cost a round trip and
// React's reveal throttle); the result pages load when they are reached.
import Esign from './pages/Esign';
const Success = lazy(() => import('./pages/Success'));
const Failed = lazy(() => import('./pages/Failed'));

/**
 * While the success page's code loads it already says what it will say first (spec: 'Processing...', then 'eSign
 * successfully completed'), in the same frame, so a signer back from the ESP never sees another text in between.
 */
const SuccessLoading = () => {
  const { orgId } = useParams();
  const { t } = useI18n();
  return (
    <Shell orgId={orgId}>
      <PleaseWait text={t('page.processing')} />
    </Shell>
  );
};

/** The recipient routes of the specification (section 2); everything else is the console's /not-found. */
const App = () => (
  <Suspense fallback={<PleaseWait />}>
    <Routes>
      <Route path={SignerRoutes.esign} element={<Esign />} />
      <Route
        path={SignerRoutes.success}
        element={
          <Suspense fallback={<SuccessLoading />}>
            <Success />
          </Suspense>
        }
      />
      <Route path={SignerRoutes.failed} element={<Failed />} />
      <Route path={SignerRoutes.retryMailSent} element={<RetryMailSent />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  </Suspense>
);

export default App;
